use std::fmt;

/// A point.
#[derive(Debug)]
pub struct Point {
    x: i32,
    y: i32,
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

pub(crate) fn parse<'a>(s: &'a str) -> Option<&'a str> {
    let c = '{';
    if s.is_empty() { None } else { Some(s) }
}

pub trait Shape {
    fn area(&self) -> f64;
}

macro_rules! square {
    ($x:expr) => { $x * $x };
}

const MAX: usize = 3;
