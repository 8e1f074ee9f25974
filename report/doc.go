// Package report turns results folders into the paper's tables and into a
// reproduction report: each reproduced number beside the paper's, read from
// data files that record the paper's values with their source. Like plots,
// it reads results files only and never recomputes a kernel.
package report
