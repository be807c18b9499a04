//! lc0's Dirichlet noise on the root's priors (docs/lc0/search.md §4.8): `DirichletNoiseEpsilon` of each prior is
//! replaced by a share of a draw from a symmetric Dirichlet distribution of parameter `DirichletNoiseAlpha`, when
//! the root is first evaluated, so that the search also looks at moves the network rates low (lc0
//! `src/search/classic/search.cc`, `ApplyDirichletNoise`).

use nn::prior::{decode_prior, encode_prior};
use rand::Rng;
use rand_distr::{Distribution, Gamma};

use super::node::Edge;
use super::std_sort::std_sort;

/// lc0's Dirichlet noise options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootNoise {
    /// The share of each prior the noise replaces (0: none).
    pub epsilon: f32,
    /// The Dirichlet parameter: small values put the noise on few moves, large ones spread it evenly.
    pub alpha: f32,
}

impl RootNoise {
    /// Mixes the noise into the priors of a newly evaluated root's `edges` and sorts them by prior again, highest
    /// first (lc0's `SortEdges`, by its std::sort), as lc0 does before the root's first visit
    /// goes down. Nothing without noise, or with an alpha no gamma distribution takes.
    pub fn apply(&self, edges: &mut [Edge], rng: &mut impl Rng) {
        if self.epsilon == 0.0 {
            return;
        }
        let Ok(gamma) = Gamma::new(f64::from(self.alpha), 1.0) else {
            return;
        };
        let draws: Vec<f32> = edges.iter().map(|_| gamma.sample(rng) as f32).collect();
        let total: f32 = draws.iter().sum();
        if total < f32::MIN_POSITIVE {
            return;
        }
        for (edge, draw) in edges.iter_mut().zip(draws) {
            // lc0's build fuses the first product with the sum (docs/lc0/search.md §4.15).
            let noisy = decode_prior(edge.prior).mul_add(1.0 - self.epsilon, self.epsilon * draw / total);
            edge.prior = encode_prior(noisy);
        }
        std_sort(edges, |a, b| a.prior > b.prior);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use shakmaty::{Chess, Position};

    const PRIORS: [f32; 4] = [0.7, 0.2, 0.08, 0.02];

    fn edges() -> Vec<Edge> {
        let moves = Chess::default().legal_moves();
        PRIORS.iter().zip(moves.iter()).map(|(&p, mv)| Edge::new(mv, p)).collect()
    }

    /// Each move's noisy prior over `draws` roots: their mean and variance, in the moves' first order.
    fn moments(noise: RootNoise, draws: usize) -> Vec<(f64, f64)> {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let original = edges();
        let mut samples = vec![Vec::new(); PRIORS.len()];
        for _ in 0..draws {
            let mut noisy = edges();
            noise.apply(&mut noisy, &mut rng);
            assert!(noisy.windows(2).all(|pair| pair[0].prior >= pair[1].prior), "sorted by prior");
            for (slot, edge) in original.iter().enumerate() {
                let after = noisy.iter().find(|candidate| candidate.mv == edge.mv).expect("every move kept");
                samples[slot].push(f64::from(after.p()));
            }
        }
        samples
            .iter()
            .map(|values| {
                let mean = values.iter().sum::<f64>() / values.len() as f64;
                let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (values.len() - 1) as f64;
                (mean, variance)
            })
            .collect()
    }

    #[test]
    fn the_noisy_priors_have_the_dirichlet_mixtures_mean_and_variance() {
        // A symmetric Dirichlet over k = 4 moves with parameter α: each share has mean 1/k and variance
        // (1/k)(1 − 1/k)/(kα + 1); mixed in at ε, a prior p has mean (1 − ε)p + ε/k and variance ε² times that.
        let (epsilon, k) = (0.25, PRIORS.len() as f64);
        for alpha in [0.3, 3.0] {
            let share_variance = (1.0 / k) * (1.0 - 1.0 / k) / (k * alpha + 1.0);
            let noise = RootNoise { epsilon: epsilon as f32, alpha: alpha as f32 };
            for ((mean, variance), p) in moments(noise, 20_000).into_iter().zip(PRIORS) {
                let expected_mean = (1.0 - epsilon) * f64::from(p) + epsilon / k;
                let what = format!("α {alpha}, p {p}");
                assert!((mean - expected_mean).abs() < 0.003, "{what}: mean {mean}, expected {expected_mean}");
                let expected_variance = epsilon * epsilon * share_variance;
                let relative = (variance - expected_variance).abs() / expected_variance;
                assert!(relative < 0.05, "{what}: variance {variance}, expected {expected_variance}");
            }
        }
    }

    #[test]
    fn no_epsilon_or_an_alpha_of_zero_leaves_the_priors_alone() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for noise in [RootNoise { epsilon: 0.0, alpha: 0.3 }, RootNoise { epsilon: 0.25, alpha: 0.0 }] {
            let mut noisy = edges();
            noise.apply(&mut noisy, &mut rng);
            assert_eq!(noisy, edges(), "{noise:?}");
        }
    }
}
