package eval

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Normalize returns the normalised kernel k(x,y)/√(k(x,x)·k(y,y)), which
// has ones on its diagonal. A sample whose self-similarity k(x,x) is zero
// (an empty feature vector) has no direction to normalise; its row and
// column stay zero, as does its diagonal entry. A negative k(x,x), which no
// kernel produces, is treated as zero rather than giving NaN.
func Normalize(k mat.Symmetric) *mat.SymDense {
	n := k.SymmetricDim()
	// √k(x,x)·√k(y,y) rather than √(k(x,x)·k(y,y)): the product of two
	// large diagonals (walk kernels reach 10^12 and beyond) may overflow.
	sq := make([]float64, n)
	for i := range sq {
		if d := k.At(i, i); d > 0 {
			sq[i] = math.Sqrt(d)
		}
	}
	out := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		if sq[i] == 0 {
			continue
		}
		// Exactly 1, where rounding of d/(√d·√d) might miss it by an ulp.
		out.SetSym(i, i, 1)
		for j := i + 1; j < n; j++ {
			if sq[j] != 0 {
				out.SetSym(i, j, k.At(i, j)/(sq[i]*sq[j]))
			}
		}
	}
	return out
}

// meanDiag returns the mean of k(i,i) over the samples idx, or 1 when that
// mean is not positive (then every training value is zero and no scale
// helps).
func meanDiag(k mat.Symmetric, idx []int) float64 {
	var s float64
	for _, i := range idx {
		s += k.At(i, i)
	}
	s /= float64(len(idx))
	if !(s > 0) {
		return 1
	}
	return s
}
