//! The PUCT Monte-Carlo tree search (LC0-NOTES §4).
