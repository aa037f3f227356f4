//! Playing a simulation: the speed ladder, the fraction of a step carried between animation frames,
//! and the play/pause/speed part of every widget model's reducer ([`Player`]).

/// The speed ladder, in steps per second.
pub const SPEEDS: [u32; 9] = [1, 2, 5, 10, 30, 100, 1_000, 10_000, 100_000];
/// The speed a widget starts at (an index into [`SPEEDS`]).
pub const DEFAULT_SPEED: usize = 3;
/// Speeds up to this announce every step while playing.
const ANNOUNCE_WHILE_PLAYING: u32 = 2;
/// Playing at full speed, the board redraws its text (each lane's sentence: CPU, line and
/// counters; the mechanism's queues) at most this often, while the lanes' states, marks and step
/// buttons and the counters are redrawn on every frame ([`crate::live::Live::hold`]). Anything but
/// a frame (a pause, a step by hand, a form change) redraws everything at once.
pub const TEXT_EVERY_MS: f64 = 250.0;

/// Whether a model plays, and how fast.
#[derive(Clone, Debug, PartialEq)]
pub struct Playback {
    /// Playing (advancing on every animation frame).
    pub playing: bool,
    /// Index into [`SPEEDS`].
    pub speed: usize,
    carry: f64,
}

impl Default for Playback {
    fn default() -> Self {
        Playback {
            playing: false,
            speed: DEFAULT_SPEED,
            carry: 0.0,
        }
    }
}

impl Playback {
    /// Steps per second now.
    pub fn speed_value(&self) -> u32 {
        SPEEDS[self.speed.min(SPEEDS.len() - 1)]
    }

    /// Not at the top of the ladder.
    pub fn can_faster(&self) -> bool {
        self.speed + 1 < SPEEDS.len()
    }

    /// Not at the bottom.
    pub fn can_slower(&self) -> bool {
        self.speed > 0
    }

    /// Whether the board may keep its text (the lanes' sentences, the queues) as drawn `since_ms`
    /// ago: only while playing at full speed, and only for [`TEXT_EVERY_MS`].
    pub fn holds_text(&self, since_ms: f64) -> bool {
        self.playing && !self.can_faster() && since_ms < TEXT_EVERY_MS
    }
}

/// A model that can be played: it takes default steps and says what happened.
pub trait Player {
    /// What one step returns.
    type Rec;
    /// The play state.
    fn playback(&mut self) -> &mut Playback;
    /// Take one default step (`None`: nothing can run, or the history is full).
    fn step_once(&mut self) -> Option<Self::Rec>;
    /// Whether a default step can be taken.
    fn can_step(&self) -> bool;
    /// Steps taken.
    fn position(&self) -> u64;
    /// The sentence for a step just taken.
    fn sentence(&self, rec: &Self::Rec) -> String;
    /// The sentence for a run that cannot go on.
    fn stopped_sentence(&self) -> String;
    /// Set the announcement.
    fn say(&mut self, s: String);

    /// Play or pause.
    fn toggle_play(&mut self) {
        if self.playback().playing {
            self.playback().playing = false;
            let s = format!("Paused at step {}.", self.position());
            self.say(s);
        } else if self.can_step() {
            let p = self.playback();
            p.playing = true;
            p.carry = 0.0;
            let s = format!("Playing at {} steps per second.", p.speed_value());
            self.say(s);
        } else {
            let s = self.stopped_sentence();
            self.say(s);
        }
    }

    /// Pause; false if not playing.
    fn pause(&mut self) -> bool {
        if !self.playback().playing {
            return false;
        }
        self.playback().playing = false;
        let s = format!("Paused at step {}.", self.position());
        self.say(s);
        true
    }

    /// One rung up or down the ladder; false at its end.
    fn change_speed(&mut self, faster: bool) -> bool {
        let p = self.playback();
        let old = p.speed;
        p.speed = if faster {
            (p.speed + 1).min(SPEEDS.len() - 1)
        } else {
            p.speed.saturating_sub(1)
        };
        if p.speed == old {
            return false;
        }
        let s = format!("Speed: {} steps per second.", p.speed_value());
        self.say(s);
        true
    }

    /// One animation frame, `dt_ms` after the last: take the steps the speed asks for (carrying the
    /// fraction), checking `out_of_time` now and then so a frame stays short. Returns whether
    /// anything changed.
    fn advance(&mut self, dt_ms: f64, out_of_time: &mut dyn FnMut() -> bool) -> bool {
        let p = self.playback();
        if !p.playing {
            return false;
        }
        let speed = p.speed_value();
        p.carry += speed as f64 * dt_ms.clamp(0.0, 250.0) / 1000.0;
        let n = p.carry.floor();
        p.carry -= n;
        let n = n as u64;
        if n == 0 {
            return false;
        }
        let mut last = None;
        for i in 0..n {
            match self.step_once() {
                Some(rec) => last = Some(rec),
                None => {
                    self.playback().playing = false;
                    let s = self.stopped_sentence();
                    self.say(s);
                    return true;
                }
            }
            if i % 64 == 63 && out_of_time() {
                // drop the rest of this frame's steps rather than build a backlog
                self.playback().carry = 0.0;
                break;
            }
        }
        if speed <= ANNOUNCE_WHILE_PLAYING {
            if let Some(rec) = last {
                let s = self.sentence(&rec);
                self.say(s);
            }
        }
        if !self.can_step() {
            self.playback().playing = false;
            let s = self.stopped_sentence();
            self.say(s);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The board keeps its text only while playing at the top speed, and for less than
    /// `TEXT_EVERY_MS`.
    #[test]
    fn text_is_held_only_playing_at_full_speed() {
        let mut p = Playback {
            playing: true,
            speed: SPEEDS.len() - 1,
            ..Playback::default()
        };
        assert!(p.holds_text(0.0));
        assert!(p.holds_text(TEXT_EVERY_MS - 1.0));
        assert!(!p.holds_text(TEXT_EVERY_MS));
        p.speed -= 1;
        assert!(!p.holds_text(0.0), "one rung below full speed");
        p.speed += 1;
        p.playing = false;
        assert!(!p.holds_text(0.0), "paused");
    }
}
