package reports

// SetWriteFault makes WriteAll fail when it stages the file named (nil:
// never); the returned func restores the previous hook.
func SetWriteFault(fault func(name string) error) (restore func()) {
	prev := writeFault
	writeFault = fault
	return func() { writeFault = prev }
}
