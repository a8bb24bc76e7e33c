//! The lexer of the readable-FX subset: one physical line at a time, into tokens that carry
//! their 1-based column (counted in characters, so non-ASCII text never splits).

use crate::GraphError;

/// What a token is.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum TokKind {
    /// A name or keyword: `add_1`, `torch`, `None`, `inf`.
    Ident(String),
    /// An unsigned integer literal, as written.
    Int(String),
    /// An unsigned float literal, as written (`1e-05`, `2.5`).
    Float(String),
    /// A string literal, unescaped. `escaped` is true when the source used a backslash escape,
    /// so that columns inside the literal no longer match characters of the value.
    Str { value: String, escaped: bool },
    /// One of `( ) [ ] , : = ; . -`.
    Punct(char),
}

/// A token and where it is.
#[derive(Clone, Debug)]
pub(super) struct Token {
    pub(super) kind: TokKind,
    /// 1-based column of its first character.
    pub(super) col: usize,
    /// 1-based column just after its last character.
    pub(super) end: usize,
}

impl Token {
    /// True for the punctuation `c`.
    pub(super) fn is_punct(&self, c: char) -> bool {
        self.kind == TokKind::Punct(c)
    }

    /// The identifier's text, if it is one.
    pub(super) fn ident(&self) -> Option<&str> {
        match &self.kind {
            TokKind::Ident(s) => Some(s),
            _ => None,
        }
    }
}

/// How a token reads in an error message.
pub(super) fn describe(tok: Option<&Token>) -> String {
    match tok.map(|t| &t.kind) {
        None => "end of line".into(),
        Some(TokKind::Ident(s)) => format!("'{s}'"),
        Some(TokKind::Int(s)) => format!("integer {s}"),
        Some(TokKind::Float(s)) => format!("float {s}"),
        Some(TokKind::Str { value, .. }) => format!("string {value:?}"),
        Some(TokKind::Punct(c)) => format!("'{c}'"),
    }
}

fn error(line: usize, col: usize, msg: impl Into<String>) -> GraphError {
    GraphError::Parse {
        line,
        col,
        msg: msg.into(),
    }
}

/// Splits one line into tokens. A `#` outside a string ends the line (comment).
pub(super) fn lex_line(text: &str, line: usize) -> Result<Vec<Token>, GraphError> {
    let chars: Vec<char> = text.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        let start = i;
        let kind = match c {
            ' ' => {
                i += 1;
                continue;
            }
            '\t' if toks.is_empty() => {
                return Err(error(
                    line,
                    col,
                    "tabs are not supported for indentation; indent with spaces",
                ));
            }
            '\t' => {
                i += 1;
                continue;
            }
            '#' => break,
            c if c.is_ascii_alphabetic() || c == '_' => {
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                TokKind::Ident(chars[start..i].iter().collect())
            }
            c if c.is_ascii_digit() => lex_number(&chars, &mut i, line)?,
            '\'' | '"' => lex_string(&chars, &mut i, line)?,
            '(' | ')' | '[' | ']' | ',' | ':' | '=' | ';' | '.' | '-' => {
                i += 1;
                TokKind::Punct(c)
            }
            c => {
                let shown = if c.is_control() || c.is_whitespace() {
                    format!("{c:?}")
                } else {
                    format!("'{c}'")
                };
                return Err(error(line, col, format!("unexpected character {shown}")));
            }
        };
        toks.push(Token {
            kind,
            col,
            end: i + 1,
        });
    }
    Ok(toks)
}

/// `12`, `1.5`, `1e-05`, `2.`, `1E+16`. No sign (the parser handles `-`), no hex, no `_`.
fn lex_number(chars: &[char], i: &mut usize, line: usize) -> Result<TokKind, GraphError> {
    let start = *i;
    let digits = |i: &mut usize| {
        while *i < chars.len() && chars[*i].is_ascii_digit() {
            *i += 1;
        }
    };
    digits(i);
    let mut is_float = false;
    if *i < chars.len() && chars[*i] == '.' {
        is_float = true;
        *i += 1;
        digits(i);
    }
    if *i < chars.len() && matches!(chars[*i], 'e' | 'E') {
        let mut j = *i + 1;
        if j < chars.len() && matches!(chars[j], '+' | '-') {
            j += 1;
        }
        if j < chars.len() && chars[j].is_ascii_digit() {
            is_float = true;
            *i = j;
            digits(i);
        }
    }
    if *i < chars.len() && (chars[*i].is_alphanumeric() || chars[*i] == '_') {
        return Err(error(
            line,
            start + 1,
            format!(
                "malformed number '{}'",
                chars[start..=*i].iter().collect::<String>()
            ),
        ));
    }
    let text: String = chars[start..*i].iter().collect();
    Ok(if is_float {
        TokKind::Float(text)
    } else {
        TokKind::Int(text)
    })
}

/// A single- or double-quoted string with Python's common escapes.
fn lex_string(chars: &[char], i: &mut usize, line: usize) -> Result<TokKind, GraphError> {
    let open = *i;
    let quote = chars[open];
    *i += 1;
    let mut value = String::new();
    let mut escaped = false;
    loop {
        let Some(&c) = chars.get(*i) else {
            return Err(error(
                line,
                open + 1,
                "unterminated string: the quote is not closed before the end of the line",
            ));
        };
        *i += 1;
        if c == quote {
            return Ok(TokKind::Str { value, escaped });
        }
        if c != '\\' {
            value.push(c);
            continue;
        }
        escaped = true;
        let esc_col = *i;
        let Some(&e) = chars.get(*i) else {
            return Err(error(
                line,
                open + 1,
                "unterminated string: the quote is not closed before the end of the line",
            ));
        };
        *i += 1;
        let hex_len = match e {
            '\\' | '\'' | '"' => {
                value.push(e);
                continue;
            }
            'n' => {
                value.push('\n');
                continue;
            }
            't' => {
                value.push('\t');
                continue;
            }
            'r' => {
                value.push('\r');
                continue;
            }
            '0' => {
                value.push('\0');
                continue;
            }
            'x' => 2,
            'u' => 4,
            'U' => 8,
            _ => {
                return Err(error(
                    line,
                    esc_col,
                    format!("unsupported escape sequence '\\{e}' in string"),
                ));
            }
        };
        let hex: String = chars.iter().skip(*i).take(hex_len).collect();
        let code = (hex.chars().count() == hex_len && hex.chars().all(|h| h.is_ascii_hexdigit()))
            .then(|| u32::from_str_radix(&hex, 16).ok())
            .flatten()
            .and_then(char::from_u32);
        match code {
            Some(ch) => {
                value.push(ch);
                *i += hex_len;
            }
            None => {
                return Err(error(
                    line,
                    esc_col,
                    format!("bad escape sequence '\\{e}{hex}' in string"),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<TokKind> {
        lex_line(s, 1)
            .unwrap()
            .into_iter()
            .map(|t| t.kind)
            .collect()
    }

    #[test]
    fn numbers_names_and_strings() {
        use TokKind::*;
        assert_eq!(
            kinds("f(1e-05, -2, 2.5, 'a\\'b', \"c\") # done"),
            vec![
                Ident("f".into()),
                Punct('('),
                Float("1e-05".into()),
                Punct(','),
                Punct('-'),
                Int("2".into()),
                Punct(','),
                Float("2.5".into()),
                Punct(','),
                Str {
                    value: "a'b".into(),
                    escaped: true
                },
                Punct(','),
                Str {
                    value: "c".into(),
                    escaped: false
                },
                Punct(')'),
            ]
        );
        assert_eq!(kinds("1E+16"), vec![Float("1E+16".into())]);
        assert_eq!(kinds("'\\x41\\u00e9'").len(), 1);
    }

    #[test]
    fn columns_count_characters() {
        let toks = lex_line("é = x", 1);
        assert!(matches!(toks, Err(GraphError::Parse { col: 1, .. })));
        let toks = lex_line("'é' x", 1).unwrap();
        assert_eq!((toks[1].col, toks[1].end), (5, 6));
    }

    #[test]
    fn malformed_tokens_are_errors() {
        for bad in ["1abc", "'open", "'\\q'", "'\\x4'", "$", "1e5x", "\tx"] {
            assert!(lex_line(bad, 3).is_err(), "{bad}");
        }
    }
}
