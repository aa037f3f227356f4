//! The ```` ```herdlab-predict ```` block: a question, its choices, the right one and what to say
//! once the learner has picked. It belongs to no mechanism.

/// A parsed ```` ```herdlab-predict ```` block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PredictSpec {
    /// The question.
    pub q: String,
    /// The choices.
    pub options: Vec<String>,
    /// The index of the right choice.
    pub answer: Option<usize>,
    /// Shown once the learner has picked.
    pub reveal: String,
    /// What was wrong with the block.
    pub errors: Vec<String>,
}

/// Parse a ```` ```herdlab-predict ```` body.
pub fn parse_predict(body: &str) -> PredictSpec {
    let mut errors = Vec::new();
    let mut q = String::new();
    let mut options = Vec::new();
    let mut answer_text = None;
    let mut reveal = String::new();
    for line in body.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        match line.split_once(':') {
            Some(("q", v)) => q = v.trim().to_string(),
            Some(("options", v)) => {
                options = v
                    .split('|')
                    .map(|o| o.trim().to_string())
                    .filter(|o| !o.is_empty())
                    .collect()
            }
            Some(("answer", v)) => answer_text = Some(v.trim().to_string()),
            Some(("reveal", v)) => reveal = v.trim().to_string(),
            _ => errors.push(format!(
                "'{}' is not a predict line; allowed: q: …, options: a | b, answer: …, reveal: …",
                herdlab_core::mechanism::shown(line)
            )),
        }
    }
    if q.is_empty() {
        errors.push("q: missing".into());
    }
    if options.len() < 2 {
        errors.push("options: give at least two, separated by |".into());
    }
    let answer = match &answer_text {
        Some(a) => {
            let i = options.iter().position(|o| o == a);
            if i.is_none() {
                errors.push(format!(
                    "answer: '{}' is not one of the options; allowed: {}",
                    herdlab_core::mechanism::shown(a),
                    herdlab_core::mechanism::shown(&options.join(", "))
                ));
            }
            i
        }
        None => {
            errors.push("answer: missing".into());
            None
        }
    };
    PredictSpec {
        q,
        options,
        answer,
        reveal,
        errors,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predict() {
        let p = parse_predict("q: How many?\noptions: 0 | 1 | 7 | 8\nanswer: 7\nreveal: Seven.\n");
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        assert_eq!(p.answer, Some(2));
        let p = parse_predict("garbage\nanswer: 9");
        assert!(p.errors.len() >= 3);
    }
}
