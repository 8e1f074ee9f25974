package kernels

import (
	"context"
	"math/rand/v2"
	"testing"
)

// TestGramSchemesAgree checks that the merge-join and inverted-index Gram
// schemes give the same matrix to the bit, with and without weights, on
// random sparse vectors with non-integer values (where a different order of
// summation would show).
func TestGramSchemesAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	const n, dim = 40, 300
	vecs := make([]Vec, n)
	df := make([]int32, dim)
	for i := range vecs {
		for id := uint32(0); id < dim; id++ {
			if r.Float64() < 0.1 {
				vecs[i].IDs = append(vecs[i].IDs, id)
				vecs[i].Vals = append(vecs[i].Vals, r.NormFloat64())
				df[id]++
			}
		}
	}
	weights := make([]float64, dim)
	for i := range weights {
		weights[i] = r.Float64()
	}
	for _, w := range [][]float64{nil, weights} {
		a, err := gramMerge(context.Background(), vecs, w, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, threads := range []int{1, 2, 3} {
			b, err := gramInverted(context.Background(), vecs, w, df, threads)
			if err != nil {
				t.Fatal(err)
			}
			requireEqual(t, "merge vs inverted", a, b)
			c, err := gramMerge(context.Background(), vecs, w, threads)
			if err != nil {
				t.Fatal(err)
			}
			requireEqual(t, "merge with threads", a, c)
		}
	}
}
