//! Plays scheduled games on worker threads, each keeping its own engine processes, and streams results back.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use super::game::{play_game, EngineSlot, GameJob};
use super::record::GameRecord;
use super::schedule::MatchPlan;

/// Whether the caller wants more games after seeing one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Keep dispatching games.
    Continue,
    /// Dispatch no new games; games in progress still finish and are reported.
    Stop,
}

/// Plays `jobs` with `plan.concurrency` workers; `on_game` sees every finished game in finishing order on the calling
/// thread. Returns all finished games.
pub fn play_games(plan: &MatchPlan, jobs: Vec<GameJob>, mut on_game: impl FnMut(&GameRecord) -> Flow) -> Vec<GameRecord> {
    let (job_sender, job_receiver) = crossbeam_channel::unbounded::<GameJob>();
    for job in jobs {
        let _ = job_sender.send(job);
    }
    drop(job_sender);
    let (result_sender, result_receiver) = crossbeam_channel::unbounded::<GameRecord>();
    let stop = AtomicBool::new(false);
    let mut finished = Vec::new();
    std::thread::scope(|scope| {
        for _ in 0..plan.concurrency.max(1) {
            let jobs = job_receiver.clone();
            let results = result_sender.clone();
            let stop = &stop;
            scope.spawn(move || {
                let mut slots: HashMap<usize, EngineSlot> = HashMap::new();
                while !stop.load(Ordering::SeqCst) {
                    let Ok(job) = jobs.recv() else { break };
                    for index in [job.white, job.black] {
                        slots.entry(index).or_insert_with(|| EngineSlot::new(plan.engines[index].clone()));
                    }
                    let (Some(mut white), Some(mut black)) = (slots.remove(&job.white), slots.remove(&job.black)) else {
                        break;
                    };
                    let record = play_game(&job, &mut white, &mut black, &plan.settings);
                    slots.insert(job.white, white);
                    slots.insert(job.black, black);
                    if results.send(record).is_err() {
                        break;
                    }
                }
                for slot in slots.values_mut() {
                    slot.shut_down();
                }
            });
        }
        drop(result_sender);
        for record in result_receiver.iter() {
            if on_game(&record) == Flow::Stop {
                stop.store(true, Ordering::SeqCst);
            }
            finished.push(record);
        }
    });
    finished
}
