package harness

// AccuracyRow is one line of accuracy.jsonl: the nested cross-validation
// accuracy of one kernel configuration on one data coordinate of a spec's
// grid. It sits beside cells.jsonl so that figures can put accuracy next to
// running time for the same coordinates.
type AccuracyRow struct {
	// Cell and Coords identify the grid cell as in Row; for a kernel
	// parameter selected inside the cross-validation (for example the walk
	// length chosen from 0..9), the coordinate is the value the row is
	// about, and Selected says whether it was selected or fixed.
	Cell   string            `json:"cell"`
	Coords map[string]string `json:"coords"`
	Data   string            `json:"data"`
	Kernel string            `json:"kernel"`
	Params string            `json:"params"`
	// Method is the method whose kernel matrices were evaluated.
	Method string `json:"method"`
	// Mean and Std are the accuracy in percent over the repetitions of the
	// outer cross-validation, and Reps and Folds their numbers.
	Mean  float64 `json:"accuracy_mean"`
	Std   float64 `json:"accuracy_std"`
	Reps  int     `json:"reps"`
	Folds int     `json:"folds"`
	// Chosen counts how often each selected parameter value won the inner
	// cross-validation, keyed like "C=0.1" or "normalise=true".
	Chosen map[string]int `json:"chosen,omitempty"`
	// Fits counts the SVMs trained and CapFits those in which LIBSVM
	// stopped at its iteration cap.
	Fits    int `json:"fits"`
	CapFits int `json:"cap_fits"`
	// Seconds is the time of the kernel matrices and the cross-validation.
	Seconds float64 `json:"seconds"`
	// Status is "ok", or why no accuracy exists: "timeout" or "oom" when
	// every timed run of the cell hit that limit, "error: ...".
	Status string `json:"status"`
	// Note says which candidates were left out of the selection and why.
	Note string `json:"note,omitempty"`
}
