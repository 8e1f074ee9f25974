#include <stdlib.h>
#include <string.h>

#include "gk_svm.h"

// The counters are thread-local so that concurrent trainings on different
// threads do not mix their counts: gk_train resets them, trains and reads
// them back within one call, hence on one thread.
static __thread long long gk_iter;
static __thread int gk_caps;
static __thread long long gk_cap_at;

// gk_print receives every message LIBSVM prints through its print function.
// It relies on the text of LIBSVM 3.x's Solver::Solve, which reports
// "optimization finished, #iter = N" once per binary subproblem. The
// solver's own "WARNING: reaching max number of iterations" cannot be used:
// LIBSVM 3.24 writes it with fprintf(stderr), bypassing the print function.
// A subproblem hit the cap instead when N reached max_iter, which Solve sets
// to max(10^7, 100·l) for a subproblem of l samples.
static void gk_print(const char *s) {
	const char *p = strstr(s, "#iter = ");
	if (p != NULL) {
		long long n = strtoll(p + strlen("#iter = "), NULL, 10);
		gk_iter += n;
		if (n >= gk_cap_at) {
			gk_caps++;
		}
	}
}

void gk_silence(void) {
	svm_set_print_string_function(&gk_print);
}

struct svm_model *gk_train(struct svm_node *const *rows, const int *idx, const double *y, int l,
	const struct svm_parameter *param, long long *iter, int *caps, const char **err) {
	struct svm_problem prob;
	struct svm_model *model;
	int i;

	*err = NULL;
	// LIBSVM keeps pointers to the rows (the support vectors) but not to
	// these two arrays: svm_train copies what it needs.
	prob.l = l;
	prob.y = malloc(sizeof(double) * (size_t)l);
	prob.x = malloc(sizeof(struct svm_node *) * (size_t)l);
	if (prob.y == NULL || prob.x == NULL) {
		free(prob.y);
		free(prob.x);
		return NULL;
	}
	for (i = 0; i < l; i++) {
		prob.y[i] = y[i];
		prob.x[i] = rows[idx[i]];
	}
	*err = svm_check_parameter(&prob, param);
	if (*err != NULL) {
		free(prob.y);
		free(prob.x);
		return NULL;
	}
	gk_iter = 0;
	gk_caps = 0;
	// Subproblems have at most l samples; for l ≤ 10^5 every one of them has
	// the cap 10^7.
	gk_cap_at = 100LL * l;
	if (gk_cap_at < 10000000LL) {
		gk_cap_at = 10000000LL;
	}
	model = svm_train(&prob, param);
	*iter = gk_iter;
	*caps = gk_caps;
	free(prob.y);
	free(prob.x);
	return model;
}

void gk_predict(const struct svm_model *model, struct svm_node *const *rows, const int *idx, int n, double *out) {
	int i;
	for (i = 0; i < n; i++) {
		out[i] = svm_predict(model, rows[idx[i]]);
	}
}

void gk_free_model(struct svm_model *model) {
	svm_free_and_destroy_model(&model);
}
