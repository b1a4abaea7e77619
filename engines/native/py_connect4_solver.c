/* The Python module ``engines.native._connect4_solver``: connect4_solver.c's interface for
 * engines/connect4_solver.py. Boards travel as Python ints (up to 192 bits). ``solve`` releases the
 * interpreter's lock while it runs, so a search on a helper thread can be watched and stopped from
 * the main one (``low``, ``high``, ``stop``). */
#include "py_common.h"
#include "connect4_solver.c"

#define CAPSULE "arena.connect4_solver"

static void release(PyObject *capsule) { c4_free(PyCapsule_GetPointer(capsule, CAPSULE)); }

static PyObject *py_new(PyObject *self, PyObject *args) {
    int width, height;
    long long table_size;
    if (!PyArg_ParseTuple(args, "iiL:new", &width, &height, &table_size)) return NULL;
    return handle_new(c4_new(width, height, table_size), CAPSULE, release);
}

/* solve(handle, current, mask, moves, max_nodes, has_deadline, deadline, watch, low, high) -> score
 * (proved against low and high), or C4_OUT_OF_BUDGET (see c4_solve). */
static PyObject *py_solve(PyObject *self, PyObject *args) {
    PyObject *capsule, *current, *mask;
    int moves, has_deadline, watch, low, high;
    long long max_nodes;
    double deadline;
    if (!PyArg_ParseTuple(args, "OOOiLpdpii:solve", &capsule, &current, &mask, &moves, &max_nodes, &has_deadline,
                          &deadline, &watch, &low, &high))
        return NULL;
    void *solver = handle_of(capsule, CAPSULE);
    uint64_t c[3], m[3];
    if (solver == NULL || words_of(current, c) < 0 || words_of(mask, m) < 0) return NULL;
    int score;
    Py_BEGIN_ALLOW_THREADS
    score = c4_solve(solver, c[0], c[1], c[2], m[0], m[1], m[2], moves, max_nodes, has_deadline, deadline, watch, low,
                     high);
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(score);
}

/* The one-argument calls: reset and clear, and the counters a watcher reads while a search runs. */
#define GETTER(fn, convert)                                               \
    static PyObject *py_##fn(PyObject *self, PyObject *capsule) {         \
        void *solver = handle_of(capsule, CAPSULE);                       \
        return solver == NULL ? NULL : convert(c4_##fn(solver));         \
    }
GETTER(nodes, PyLong_FromUnsignedLongLong)
GETTER(table_entries, PyLong_FromUnsignedLongLong)
GETTER(low, PyLong_FromLong)
GETTER(high, PyLong_FromLong)
GETTER(root_move, PyLong_FromLong)

#define ACTION(fn)                                                        \
    static PyObject *py_##fn(PyObject *self, PyObject *capsule) {         \
        void *solver = handle_of(capsule, CAPSULE);                       \
        if (solver == NULL) return NULL;                                  \
        c4_##fn(solver);                                                  \
        Py_RETURN_NONE;                                                   \
    }
ACTION(reset)
ACTION(clear)

/* stop(handle, flag): ask a running search to stop (True), or clear the request (False). */
static PyObject *py_stop(PyObject *self, PyObject *args) {
    PyObject *capsule;
    int flag;
    if (!PyArg_ParseTuple(args, "Op:stop", &capsule, &flag)) return NULL;
    void *solver = handle_of(capsule, CAPSULE);
    if (solver == NULL) return NULL;
    c4_stop(solver, flag);
    Py_RETURN_NONE;
}

/* For the tests: u192_op(op, a, b, n) -> (int result, board result) (see c4_u192_op). */
static PyObject *py_u192_op(PyObject *self, PyObject *args) {
    int op, n;
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "iOOi:u192_op", &op, &a, &b, &n)) return NULL;
    uint64_t aw[3], bw[3], out[3] = {0};
    if (words_of(a, aw) < 0 || words_of(b, bw) < 0) return NULL;
    int result = c4_u192_op(op, aw, bw, n, out);
    return Py_BuildValue("iN", result, int_of(out));
}

static PyMethodDef methods[] = {
    {"new", py_new, METH_VARARGS, "new(width, height, table_size) -> handle, or None"},
    {"solve", py_solve, METH_VARARGS,
     "solve(handle, current, mask, moves, max_nodes, has_deadline, deadline, watch, low, high) -> score"},
    {"reset", py_reset, METH_O, "reset(handle): an empty table, no nodes"},
    {"clear", py_clear, METH_O, "clear(handle): an empty table, the node count kept"},
    {"nodes", py_nodes, METH_O, "nodes(handle) -> nodes visited since the last reset"},
    {"table_entries", py_table_entries, METH_O, "table_entries(handle) -> entries in the table"},
    {"low", py_low, METH_O, "low(handle) -> the running search's proven lower bound"},
    {"high", py_high, METH_O, "high(handle) -> the running search's proven upper bound"},
    {"root_move", py_root_move, METH_O, "root_move(handle) -> the last search's proved root column (0-based), or -1"},
    {"stop", py_stop, METH_VARARGS, "stop(handle, flag)"},
    {"u192_op", py_u192_op, METH_VARARGS, "u192_op(op, a, b, n) -> (int result, board result)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, .m_name = "_connect4_solver", .m_doc = "The Connect Four solver core.", .m_size = -1, .m_methods = methods};

PyMODINIT_FUNC PyInit__connect4_solver(void) { return PyModule_Create(&module); }
