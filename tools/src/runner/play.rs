//! Plays scheduled games on worker threads, each keeping its own engine processes, and streams results back.

use std::collections::HashMap;

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
/// thread, which hands out one new job per finished game so that `Flow::Stop` takes effect at once. Returns all
/// finished games.
pub fn play_games(
    plan: &MatchPlan,
    jobs: Vec<GameJob>,
    mut on_game: impl FnMut(&GameRecord) -> Flow,
) -> Vec<GameRecord> {
    let workers = plan.concurrency.max(1);
    let (job_sender, job_receiver) = crossbeam_channel::unbounded::<GameJob>();
    let mut pending = jobs.into_iter();
    let mut dispatcher = Some(job_sender);
    let mut dispatch_one = |dispatcher: &mut Option<crossbeam_channel::Sender<GameJob>>| match pending.next() {
        Some(job) => {
            if let Some(sender) = dispatcher.as_ref() {
                let _ = sender.send(job);
            }
        }
        None => *dispatcher = None,
    };
    for _ in 0..workers {
        dispatch_one(&mut dispatcher);
    }
    let (result_sender, result_receiver) = crossbeam_channel::unbounded::<GameRecord>();
    let mut finished = Vec::new();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let jobs = job_receiver.clone();
            let results = result_sender.clone();
            scope.spawn(move || {
                let mut slots: HashMap<usize, EngineSlot> = HashMap::new();
                for job in jobs.iter() {
                    for index in [job.white, job.black] {
                        slots.entry(index).or_insert_with(|| EngineSlot::new(plan.engines[index].clone()));
                    }
                    let (Some(mut white), Some(mut black)) = (slots.remove(&job.white), slots.remove(&job.black))
                    else {
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
        drop(job_receiver);
        for record in result_receiver.iter() {
            match on_game(&record) {
                Flow::Continue => dispatch_one(&mut dispatcher),
                Flow::Stop => dispatcher = None,
            }
            finished.push(record);
        }
    });
    finished
}
