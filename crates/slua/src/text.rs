//! [`Text`]: the text of a literal lexeme, static or shared.

use std::rc::Rc;

/// The text of a literal lexeme: a keyword written in the code (no allocation) or a
/// shared name (API functions, cloned by reference count). Statement starts offer
/// some 60 literals, each built per segment and per look-ahead: owned strings made
/// allocation a third of checking.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Text {
    /// Text in the program.
    Static(&'static str),
    /// Shared text.
    Shared(Rc<str>),
}

impl Text {
    /// The text.
    pub fn as_str(&self) -> &str {
        match self {
            Text::Static(s) => s,
            Text::Shared(s) => s,
        }
    }
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl From<&'static str> for Text {
    fn from(s: &'static str) -> Text {
        Text::Static(s)
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text::Shared(s.into())
    }
}

impl From<&String> for Text {
    fn from(s: &String) -> Text {
        Text::Shared(s.as_str().into())
    }
}
