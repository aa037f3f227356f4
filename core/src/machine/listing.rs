//! Listings with named lines: the pseudocode a code panel shows, and where each line name stands.
//!
//! A step table names each state's line with a value of a line-name enum (declared with
//! [`line_names!`](crate::line_names)), never a bare number; a listing, built at compile time with
//! [`listing!`](crate::listing), says which of its lines carries which names. A state's highlighted
//! line is then `listing.of(state.line(&cx))`, and a test can hold every name a table uses to stand
//! in the listing and to say what the state does.
//!
//! ```
//! use herdlab_core::machine::listing::Listing;
//!
//! herdlab_core::line_names! {
//!     /// The lines of a spinlock.
//!     pub enum Ln {
//!         /// The test.
//!         Test,
//!         /// The test-and-set.
//!         Set,
//!     }
//! }
//!
//! const SPIN: Listing<Ln> = herdlab_core::listing![Ln;
//!     ([], "loop {"),
//!     ([Ln::Test], "  while lock != 0: pause()"),
//!     ([Ln::Set], "  if cas(lock, 0, 1): break"),
//!     ([], "}"),
//! ];
//! assert_eq!(SPIN.of(Ln::Set), 3);
//! assert_eq!(SPIN.text[SPIN.of(Ln::Test) as usize - 1], "  while lock != 0: pause()");
//! assert_eq!(SPIN.name_of(2), Some(Ln::Test));
//! ```

use core::marker::PhantomData;

/// A line-name enum: a fieldless enum whose values index a [`Listing`]'s table of lines (declare
/// one with [`line_names!`](crate::line_names)).
pub trait LineName: Copy + core::fmt::Debug + 'static {
    /// Every name, in declaration order (`ALL[n.index()] == n`).
    const ALL: &'static [Self];
    /// This name's index, `0..ALL.len()`.
    fn index(self) -> usize;
}

/// A pseudocode listing whose lines may carry names: the text the code panel shows, and where each
/// name stands in it, so a state's highlighted line comes from the listing itself.
#[derive(Debug)]
pub struct Listing<L: 'static> {
    /// The lines, as the code panel shows them.
    pub text: &'static [&'static str],
    /// For each name (by its index), its 1-based line, 0 when this listing lacks it.
    pub lines: &'static [u16],
    names: PhantomData<L>,
}

impl<L> Listing<L> {
    /// A listing from its text and its table of lines (what [`listing!`](crate::listing) builds).
    pub const fn new(text: &'static [&'static str], lines: &'static [u16]) -> Self {
        Listing {
            text,
            lines,
            names: PhantomData,
        }
    }
}

// A listing is its text and its table of lines (a machine that holds a `&'static Listing` compares
// and hashes by them, as by a `&'static [&'static str]`).
impl<L> PartialEq for Listing<L> {
    fn eq(&self, o: &Self) -> bool {
        self.text == o.text && self.lines == o.lines
    }
}
impl<L> Eq for Listing<L> {}
impl<L> core::hash::Hash for Listing<L> {
    fn hash<H: core::hash::Hasher>(&self, h: &mut H) {
        self.text.hash(h);
        self.lines.hash(h);
    }
}

impl<L: LineName> Listing<L> {
    /// The 1-based line named `n` (0 when the listing lacks it: the `*_forms` tests hold every
    /// reachable state's line to be present).
    #[inline(always)]
    pub fn of(&self, n: L) -> u16 {
        self.lines[n.index()]
    }

    /// The first name that stands on the 1-based `line`, if any.
    pub fn name_of(&self, line: u16) -> Option<L> {
        L::ALL
            .iter()
            .copied()
            .find(|n| line != 0 && self.of(*n) == line)
    }
}

/// Declare a line-name enum: a fieldless enum with [`LineName`] (its `ALL`) and `COUNT`.
///
/// ```text
/// line_names! { /// docs
///     pub enum Ln { /// docs
///         A, B, }
/// }
/// ```
#[macro_export]
macro_rules! line_names {
    (
        $(#[$meta:meta])*
        $vis:vis enum $Ln:ident {
            $( $(#[$vmeta:meta])* $name:ident ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $Ln {
            $( $(#[$vmeta])* $name ),+
        }

        impl $Ln {
            /// How many names there are.
            $vis const COUNT: usize = [$(stringify!($name)),+].len();
        }

        impl $crate::machine::listing::LineName for $Ln {
            const ALL: &'static [Self] = &[$($Ln::$name),+];
            #[inline(always)]
            fn index(self) -> usize {
                self as usize
            }
        }
    };
}

/// Build a [`Listing`] at compile time from its lines, each given as `([names..], "text")`: the names
/// (of a [`line_names!`](crate::line_names) enum) that stand on that line, none for most lines. A
/// name given twice is a compile-time error.
#[macro_export]
macro_rules! listing {
    ($Ln:ty; $( ([$($name:expr),* $(,)?], $text:expr) ),+ $(,)?) => {{
        const TEXT: &[&str] = &[$($text),+];
        const NAMED: &[&[$Ln]] = &[$(&[$($name),*]),+];
        const LINES: [u16; <$Ln>::COUNT] = {
            let mut lines = [0u16; <$Ln>::COUNT];
            let mut i = 0;
            while i < NAMED.len() {
                let mut j = 0;
                while j < NAMED[i].len() {
                    let n = NAMED[i][j] as usize;
                    assert!(lines[n] == 0, "a line name stands on two lines");
                    lines[n] = (i + 1) as u16;
                    j += 1;
                }
                i += 1;
            }
            lines
        };
        $crate::machine::listing::Listing::<$Ln>::new(TEXT, &LINES)
    }};
}
