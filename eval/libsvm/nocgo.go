//go:build !cgo

package libsvm

// The binding is written in cgo. Without cgo the build fails here, on an
// undefined name that says what to do, instead of on missing declarations
// elsewhere.
var _ = libsvm_needs_cgo__set_CGO_ENABLED_1_and_install_gcc_and_libsvm_dev
