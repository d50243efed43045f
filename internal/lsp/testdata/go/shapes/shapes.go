// Package shapes is a small fixture for the language-server tests.
package shapes

// Area is the area of a rectangle.
func Area(w, h int) int {
	return w * h
}
