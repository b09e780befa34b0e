//! Glicko-2 ratings (Mark Glickman, "Example of the Glicko-2 system", 2013): one rating
//! per player, updated after rated games; the deviation grows with inactivity.

/// The system constant τ (constrains volatility changes); Glickman suggests 0.3–1.2.
pub const TAU: f64 = 0.5;
const SCALE: f64 = 173.7178;
const EPSILON: f64 = 0.000_001;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
}

impl Default for Rating {
    fn default() -> Rating {
        Rating { rating: 1500.0, deviation: 350.0, volatility: 0.06 }
    }
}

/// One game's result against an opponent: score 1 win, 0.5 draw, 0 loss.
#[derive(Clone, Copy, Debug)]
pub struct Game {
    pub opponent: Rating,
    pub score: f64,
}

fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

fn e(mu: f64, mu_j: f64, phi_j: f64) -> f64 {
    1.0 / (1.0 + (-g(phi_j) * (mu - mu_j)).exp())
}

impl Rating {
    /// The rating after a rating period with `games` (none: only the deviation grows).
    pub fn update(self, games: &[Game]) -> Rating {
        let mu = (self.rating - 1500.0) / SCALE;
        let phi = self.deviation / SCALE;
        let sigma = self.volatility;
        if games.is_empty() {
            let phi_star = (phi * phi + sigma * sigma).sqrt();
            return Rating { deviation: (phi_star * SCALE).min(350.0), ..self };
        }
        let mut v_inv = 0.0;
        let mut delta_sum = 0.0;
        for gm in games {
            let mu_j = (gm.opponent.rating - 1500.0) / SCALE;
            let phi_j = gm.opponent.deviation / SCALE;
            let ej = e(mu, mu_j, phi_j);
            v_inv += g(phi_j).powi(2) * ej * (1.0 - ej);
            delta_sum += g(phi_j) * (gm.score - ej);
        }
        let v = 1.0 / v_inv;
        let delta = v * delta_sum;
        // New volatility by the Illinois algorithm (step 5).
        let a = (sigma * sigma).ln();
        let f = |x: f64| {
            let ex = x.exp();
            ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex).powi(2))
                - (x - a) / (TAU * TAU)
        };
        let mut big_a = a;
        let mut big_b = if delta * delta > phi * phi + v {
            (delta * delta - phi * phi - v).ln()
        } else {
            let mut k = 1.0;
            while f(a - k * TAU) < 0.0 {
                k += 1.0;
            }
            a - k * TAU
        };
        let (mut fa, mut fb) = (f(big_a), f(big_b));
        while (big_b - big_a).abs() > EPSILON {
            let c = big_a + (big_a - big_b) * fa / (fb - fa);
            let fc = f(c);
            if fc * fb <= 0.0 {
                big_a = big_b;
                fa = fb;
            } else {
                fa /= 2.0;
            }
            big_b = c;
            fb = fc;
        }
        let sigma_new = (big_a / 2.0).exp();
        let phi_star = (phi * phi + sigma_new * sigma_new).sqrt();
        let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
        let mu_new = mu + phi_new * phi_new * delta_sum;
        Rating { rating: mu_new * SCALE + 1500.0, deviation: phi_new * SCALE, volatility: sigma_new }
    }

    /// The deviation after `periods` rating periods without games (inactivity).
    pub fn after_inactivity(self, periods: u32) -> Rating {
        (0..periods).fold(self, |r, _| r.update(&[]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Glickman's worked example: a 1500/200 player beats a 1400/30 player and loses to
    /// 1550/100 and 1700/300 players; τ = 0.5. The paper's results: r' = 1464.06,
    /// RD' = 151.52, σ' = 0.05999.
    #[test]
    fn the_papers_worked_example() {
        let me = Rating { rating: 1500.0, deviation: 200.0, volatility: 0.06 };
        let opp = |r, d| Rating { rating: r, deviation: d, volatility: 0.06 };
        let new = me.update(&[
            Game { opponent: opp(1400.0, 30.0), score: 1.0 },
            Game { opponent: opp(1550.0, 100.0), score: 0.0 },
            Game { opponent: opp(1700.0, 300.0), score: 0.0 },
        ]);
        assert!((new.rating - 1464.06).abs() < 0.01, "{new:?}");
        assert!((new.deviation - 151.52).abs() < 0.01, "{new:?}");
        assert!((new.volatility - 0.05999).abs() < 0.00001, "{new:?}");
    }

    #[test]
    fn inactivity_widens_the_deviation_up_to_the_start_value() {
        let r = Rating { rating: 1600.0, deviation: 60.0, volatility: 0.06 };
        let later = r.after_inactivity(10);
        assert!(later.deviation > r.deviation && later.deviation <= 350.0);
        assert_eq!(later.rating, r.rating);
    }
}
