// gk_svm.h declares the C side of gkbench's binding to LIBSVM.
//
// LIBSVM comes from the system: on Debian the package libsvm-dev provides
// <libsvm/svm.h> and libsvm.so (`make deps` installs it). Without it the
// build stops here with a message that says so, rather than with a bare
// "file not found".
#ifndef GK_SVM_H
#define GK_SVM_H

#if defined(__has_include)
#if !__has_include(<libsvm/svm.h>)
#error "LIBSVM is missing: <libsvm/svm.h> not found. Install Debian's libsvm-dev (run `make deps`), or point CGO_CFLAGS and CGO_LDFLAGS at a LIBSVM 3.24 installation."
#define GK_NO_LIBSVM
#endif
#endif

#ifndef GK_NO_LIBSVM
#include <libsvm/svm.h>

// gk_silence routes LIBSVM's messages into gk_print, which prints nothing
// and counts solver iterations per thread.
void gk_silence(void);

// gk_train trains a model on the rows of a node block selected by idx, with
// labels y, after checking param. On success *iter holds the solver's
// iterations summed over the one-vs-one subproblems and *caps the number of
// subproblems stopped by the iteration cap. On failure it returns NULL and
// *err holds LIBSVM's static error message (or NULL when out of memory).
struct svm_model *gk_train(struct svm_node *const *rows, const int *idx, const double *y, int l,
	const struct svm_parameter *param, long long *iter, int *caps, const char **err);

// gk_predict writes the predicted label of rows[idx[i]] to out[i].
void gk_predict(const struct svm_model *model, struct svm_node *const *rows, const int *idx, int n, double *out);

// gk_free_model frees a model trained by gk_train; the support vectors it
// points to are left alone.
void gk_free_model(struct svm_model *model);

#endif // GK_NO_LIBSVM
#endif // GK_SVM_H
