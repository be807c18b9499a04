use std::sync::mpsc::{channel, sync_channel, SyncSender};
use std::time::{Duration, Instant};
struct Job { reply: SyncSender<u64>, work: Duration }
fn main() {
    let (jobs, queue) = channel::<Job>();
    let worker = std::thread::spawn(move || {
        while let Ok(job) = queue.recv() {
            let start = Instant::now();
            while start.elapsed() < job.work {}
            let _ = job.reply.send(1);
        }
    });
    for work_us in [0u64, 300] {
        for gap_us in [0u64, 500] {
            let n = 2000;
            let mut total = Duration::ZERO;
            for _ in 0..n {
                let start = Instant::now();
                while start.elapsed() < Duration::from_micros(gap_us) {}
                let t = Instant::now();
                let (reply, out) = sync_channel(1);
                jobs.send(Job { reply, work: Duration::from_micros(work_us) }).unwrap();
                out.recv().unwrap();
                total += t.elapsed();
            }
            println!("work {work_us} us, gap {gap_us} us: round trip {:.1} us", total.as_secs_f64() * 1e6 / n as f64 - work_us as f64);
        }
    }
    drop(jobs);
    worker.join().unwrap();
}
