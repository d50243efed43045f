// Package textedit is the text machinery edit_file, multi_edit and
// apply_patch share: a file's text with its line endings taken out and put
// back (Text), the loose match levels that forgive a model's whitespace and
// punctuation slips (Level, Normalize, Reindent), the diagnosis of a text
// that was not found (NearestLines), and how a change is reported
// (LineRanges).
package textedit
