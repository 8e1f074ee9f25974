package plots

import (
	"flag"
	"testing"
)

var keep = flag.String("keep", "", "write the fixtures' figures under this folder to look at them")

func TestLook(t *testing.T) {
	if *keep == "" {
		t.Skip("no -keep")
	}
	for _, f := range []*fixture{labelDiversityFixture(), walkLengthFixture(true), wlFixture(), attributedFixture()} {
		dir := f.write(t, *keep)
		paths, err := Plot(dir)
		t.Log(dir, len(paths), err)
	}
}
