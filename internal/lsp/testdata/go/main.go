package main

import (
	"fmt"

	"example.com/fixture/shapes"
)

func main() {
	fmt.Println(shapes.Area(2, 3))
	fmt.Println(shapes.Area(4, 5))
}
