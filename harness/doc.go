// Package harness runs the paper's experiments: it decodes experiment specs
// (experiments/*.yaml), expands their grids into cells, runs every cell's
// kernel methods under time and memory limits, and records the runs in a
// results folder that resumes after a crash, splits into shards and merges
// back.
//
// # Specs
//
// A spec is one table or figure of the paper, decoded strictly (an unknown
// key is an error) and validated; every error is one line,
// "file:line: field path: reason".
//
//	name: fig-walk-label-diversity    # results folder; default: the file name
//	title: ...                        # free text
//	paper: Section 5.3.1, Figure 5    # where it is in the paper
//	seed: 1                           # drives generators and subsets (required)
//	data:                             # a TU data set, several, or a generator
//	  dataset: U251                   #   or [MUTAG, ENZYMES]: a "dataset" axis
//	  synthetic: walk                 #   or a generator, with
//	  params: {mean_vertices: 20}     #   fixed data parameters
//	kernels:                          # kernels with fixed parameters
//	  - name: walk
//	    params: {length: 7}
//	  - name: graphlet                #   and, optionally, some of the
//	    methods: [explicit]           #   spec's methods only
//	methods: [explicit, implicit]
//	grid:                             # axes, in order; the last varies fastest
//	  pv: {from: 0, to: 1, step: 0.1} #   a range, computed exactly
//	  d: [100, 200, 300]              #   or a list, or a single value
//	measure: {repetitions: 5, warmup: 1, threads: 1, reuse: false}
//	limits: {time: 24h, memory: 16GiB}   # per run; "none" for no limit
//	profiles:                         # quick and full override axes' values,
//	  quick:                          # measure and limits
//	    grid: {d: [100, 140]}
//	    measure: {repetitions: 1}
//	    limits: {time: 60s}
//
// An axis name is a data parameter (for the walk generator pv, d,
// mean_vertices, edge_prob; for the subgraph generator labels, d,
// mean_vertices, edge_prob; for TU data sets size, a random subset grown
// by adding random graphs, nested in size, where "all" or a size at or
// beyond the data set's takes all of its graphs) or else a parameter of one or
// more kernels of the spec (length, wl, ...); kernels without that
// parameter are not varied along it and leave its coordinate empty. Kernel parameters are validated by
// building the kernel with every value of every axis.
//
// An evaluation block adds classification accuracy by the paper's protocol
// (Section 5.1), computed after a spec's timings:
//
//	evaluation:
//	  reps: 10                        # repetitions of the outer CV
//	  folds: 10                       # outer folds
//	  inner_folds: 10                 # folds of the inner CV on each training part
//	  method: explicit                # whose matrices; default each cell's first
//	  select: {delta: [0.2, 0.4]}     # kernel parameters selected inside the CV
//	  extra:                          # kernels evaluated for accuracy only,
//	    - name: grw                   #   once per data coordinate
//	      select: {gamma: [0.00001, 0.0001]}
//	profiles:
//	  quick:
//	    evaluation: {reps: 1}         # a profile may change reps and folds
//
// Every cell's kernel gets one accuracy row: its matrix for every
// combination of the selected values is computed once, then the nested
// cross-validation selects among them, the SVM's C (10^-3..10^3) and
// normalisation inside each outer training part (package eval). A
// candidate that cannot be computed (a diverging γ, the time limit) is
// left out and named in the row's note.
//
// Cells run data axes outermost, so that each data set is built once and
// shared by its kernels, methods and repetitions; building it is not timed.
// Within a cell, each method's warm-up runs come first, and then the
// repetitions round by round, a run of each method a round, so that a
// stretch of a slower machine falls on all methods alike.
//
// Each run computes its matrix from scratch, as one call does and as the
// paper timed it, unless the spec's measure sets reuse: then each method
// keeps its buffers from one run of the cell to the next
// (kernels.Workspace), as a program computing like matrices one after
// another would, and its runs allocate and collect little. The walk
// kernel's explicit map is the one that uses them so far.
//
// # Results folder
//
// A run of spec S writes OUT/S/ (a shard i of N writes
// OUT/S/shard-i-of-N/):
//
//   - cells.jsonl: one JSON object per run, the record. Rows are appended
//     and synced one by one; a resumed run skips the (cell, method,
//     repetition) rows present and drops a last line cut short by a crash.
//   - cells.csv: the same rows as CSV, rebuilt from cells.jsonl on resume.
//   - summary.csv: per cell and method, statistics over the ok repetitions.
//   - meta.json: the Meta of the run: spec file hash, profile, seed, Go
//     version, CPU model, GOMAXPROCS, host, git commit, start and end times,
//     status, and schema_version (SchemaVersion), which changes whenever a
//     column below changes.
//
// summary.csv and meta.json are written to a temporary file and renamed,
// so that they are never seen half-written.
//
// # Columns of cells.csv and cells.jsonl (schema version 1)
//
// Times are in seconds; counts are integers. In cells.jsonl the grid
// coordinates are in one object, "coords"; in cells.csv each is a column
// named after its axis, right after cell.
//
//	cell_index        position of the cell in the profile's grid (0-based)
//	cell              the cell key: data key, then kernel(parameters); the
//	                  identity of the computation, used to resume and merge
//	<axis>...         the cell's value of each grid axis, as canonical text
//	                  ("0.3", "100", "MUTAG")
//	data              the data key, e.g. walk(d=100,edge_prob=0.1,
//	                  mean_vertices=20,pv=0.3,seed=1) or U251(size=500,seed=1)
//	graphs            number of graphs of the data set (0 if it failed)
//	kernel            kernel name
//	params            every kernel parameter, sorted key=value pairs
//	method            explicit, implicit or auto
//	rep               repetition, 1-based; warm-up runs are not recorded
//	threads           threads the kernel was allowed
//	status            ok; timeout (time limit hit: the paper's ">24h");
//	                  oom (memory limit hit: the paper's "OOM"); or
//	                  "error: message"
//	note              why a row did not run, e.g. "not run: repetition 1
//	                  hit the timeout limit": the remaining repetitions of a
//	                  cell that hit a limit are recorded, not run
//	t_total           time of the Gram call without t_prep: the paper's
//	                  running time
//	t_wall            wall time of the whole Gram call
//	t_prep            preparation reported by the kernel, e.g. WL refinement
//	t_phi, t_dot      explicit method: computing feature vectors; their dot
//	                  products
//	t_wdpg, t_walks   implicit method: building weighted direct product
//	                  graphs; counting walks on them
//	feature_nnz       explicit: non-zeros over all feature vectors
//	max_feature_nnz   explicit: most non-zeros in one feature vector
//	features          explicit: distinct features (dimension in use)
//	product_vertices  implicit: product-graph vertices summed over pairs
//	product_edges     implicit: product-graph edges summed over pairs
//	pairs             implicit: graph pairs i ≤ j evaluated
//	comparisons       implicit without product graphs: base-kernel
//	                  comparisons, e.g. the path pairs of the shortest-path
//	                  kernel or the vertex pairs of weighted vertex kernels
//	heap_base_bytes   heap objects after the GC that precedes the run
//	peak_heap_bytes   largest heap sampled during the run (every 2ms,
//	                  runtime/metrics /memory/classes/heap/objects:bytes,
//	                  which includes garbage not yet swept; with
//	                  Runner.GCFloor, up to that much more of it)
//	started           when the run started, RFC 3339 UTC
//	host              host name of the machine
//	ran               the method that computed the matrix, or was
//	                  computing it when the run ended: method, or for auto
//	                  the one it ran, implicit where it switched; empty
//	                  where auto failed before it chose
//	switched          true where auto switched from the explicit method
//	                  to the implicit one during the run
//	t_probe           auto: the time of its probes, part of t_total
//	t_cpu             CPU time of the whole process, all its threads,
//	                  during the run (0 where the platform does not tell):
//	                  t_cpu/t_wall is how many cores the run had. A run on
//	                  two threads near 1 had one core only, however many the
//	                  machine has: a virtual machine's scheduler may put
//	                  both threads on one core, or its host take the other
//	                  one away (see summary.csv's cores_median). A crew's
//	                  helpers spin between the parallel stretches, so the
//	                  cores are those held, not those kept busy. The system
//	                  counts a thread that runs on another core up to its
//	                  last pass through the scheduler, a tick at most: the
//	                  kernels' spinning helpers yield every few hundred
//	                  nanoseconds (see kernels.Crew), so their time is
//	                  counted when the run returns.
//	t_c2c             the round trip of a cache line between two
//	                  threads, measured just before the run, on one thread
//	                  too (kernels.CoreLatency), 0 where it is not known
//	                  (one core, older rows). About 80 ns on the 2-vCPU
//	                  VM of issue 9 where its host puts the vCPUs near
//	                  each other, 400 in stretches of minutes where it puts
//	                  them apart, which slows the parallel kernels, whose
//	                  threads hand work to each other, but not a spinning
//	                  loop or t_cpu/t_wall (see summary.csv's c2c_median_ns).
//
// Phase and cost columns the kernel does not report are 0. For timeout and
// oom rows t_total and t_wall hold the time until the run stopped.
//
// # accuracy.jsonl
//
// One harness.AccuracyRow per cell (and per extra kernel and data
// coordinate), appended and synced like cells.jsonl, so that an evaluation
// resumes too: cell and coords (as in cells.jsonl; an extra kernel has the
// data coordinates only), data, kernel, params, method, accuracy_mean and
// accuracy_std (percent, over the repetitions), reps, folds, chosen (how
// often each selected value, normalise=true/false and C=... won the inner
// CV), fits and cap_fits (SVMs trained, and those stopped at LIBSVM's
// iteration cap), seconds, status and note.
//
// # Columns of summary.csv
//
// One row per cell and method, in grid and method order: cell_index, cell,
// the axis columns, data, graphs, kernel, params, method; reps (rows) and
// ok (rows with status ok); status (ok when all are, else the first other
// status); for each of t_total, t_prep, t_phi, t_dot, t_wdpg and t_walks
// the columns _mean, _median and _min over the ok rows (empty when there is
// none); the cost columns feature_nnz to comparisons of the first ok row (they
// do not vary between repetitions); peak_heap_max_bytes over all rows;
// cores_median, the median of t_cpu/t_wall over the ok rows that know
// their CPU time (empty where none does), with two decimals; and
// c2c_median_ns, the median of t_c2c over the ok rows that know it, in
// whole nanoseconds (empty where none does).
//
// # Limits
//
// Each Gram call runs under a context cancelled with a cause when the time
// limit passes (context.WithTimeoutCause) or when a sampling goroutine
// sees the heap above the memory limit; kernels stop at their next check of
// the context. The memory limit counts the whole process's heap objects,
// the data set included, but not the ballast of Runner.GCFloor, which sets
// how much garbage a run may gather before the collector runs within it.
// runtime.GC runs before each call so that one run's garbage does not
// count against the next. Cancelling the context passed to Run (Ctrl-C)
// cancels the run in flight, which is not recorded, keeps every finished
// row, writes summary.csv and meta.json, and returns an error wrapping
// ErrInterrupted.
//
// # Sharding
//
// A Shard i/N takes the cells whose index is i modulo N. Merge joins shard
// folders of one spec file and profile, dropping identical duplicate rows,
// and rebuilds cells.csv and summary.csv.
package harness
