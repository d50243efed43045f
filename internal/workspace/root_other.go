//go:build !unix

package workspace

import "os"

// openReadFlags: systems without Unix FIFOs open plainly.
const openReadFlags = os.O_RDONLY
