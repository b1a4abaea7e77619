/* The Python module ``engines.native._connect4_search``: connect4_search.c's interface for
 * engines/search/native_connect4.py. Boards travel as Python ints (x's discs, o's; up to 192 bits);
 * the searches release the interpreter's lock while they run. */
#include "py_common.h"
#include "connect4_search.c"

#define CAPSULE "arena.connect4_search"

static void release(PyObject *capsule) { c4s_free(PyCapsule_GetPointer(capsule, CAPSULE)); }

/* The handle's context and the two boards as words; NULL with an exception on a bad argument. */
static void *board_args(PyObject *capsule, PyObject *x, PyObject *o, uint64_t xw[3], uint64_t ow[3]) {
    void *ctx = handle_of(capsule, CAPSULE);
    if (ctx == NULL || words_of(x, xw) < 0 || words_of(o, ow) < 0) return NULL;
    return ctx;
}

static PyObject *py_new(PyObject *self, PyObject *args) {
    int width, height;
    PyObject *values;
    long long table_limit;
    if (!PyArg_ParseTuple(args, "iiOL:new", &width, &height, &values, &table_limit)) return NULL;
    int64_t weights[7];
    Py_ssize_t count = ints_in(values, weights, 7);
    if (count < 0) return NULL;
    if (count != 7) {
        PyErr_Format(PyExc_ValueError, "expected 7 evaluation weights, got %zd", count);
        return NULL;
    }
    return handle_new(c4s_new(width, height, weights, table_limit), CAPSULE, release);
}

/* set_path(handle, keys): the earlier game positions (Python keys) that score as repetitions. */
static PyObject *py_set_path(PyObject *self, PyObject *args) {
    PyObject *capsule, *keys;
    if (!PyArg_ParseTuple(args, "OO:set_path", &capsule, &keys)) return NULL;
    void *ctx = handle_of(capsule, CAPSULE);
    if (ctx == NULL) return NULL;
    PyObject *fast = PySequence_Fast(keys, "set_path: expected a sequence of int keys");
    if (fast == NULL) return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(fast);
    uint64_t *words = PyMem_Malloc(sizeof(uint64_t) * 3 * (size_t)(count ? count : 1));
    if (words == NULL) {
        Py_DECREF(fast);
        return PyErr_NoMemory();
    }
    PyObject **items = PySequence_Fast_ITEMS(fast);
    Py_ssize_t i = 0;
    while (i < count && words_of(items[i], words + 3 * i) == 0) i++;
    int kept = i == count ? c4s_set_path(ctx, words, (int)count) : 0;
    PyMem_Free(words);
    Py_DECREF(fast);
    if (i < count) return NULL;
    if (!kept) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* root(handle, x, o, depth, moves, limits, deadline) -> (stopped, out[5], scores): c4s_root. */
static PyObject *py_root(PyObject *self, PyObject *args) {
    PyObject *capsule, *x, *o, *moves_in, *limits;
    int depth;
    double deadline;
    if (!PyArg_ParseTuple(args, "OOOiOO!d:root", &capsule, &x, &o, &depth, &moves_in, &PyList_Type, &limits,
                          &deadline))
        return NULL;
    uint64_t xw[3], ow[3];
    int64_t io[7], out[5] = {0}, scores[C4S_MAX_W] = {0};
    int32_t moves[C4S_MAX_W];
    void *ctx = board_args(capsule, x, o, xw, ow);
    if (ctx == NULL || limits_in(limits, io) < 0) return NULL;
    Py_ssize_t count = root_moves_in(moves_in, moves, C4S_MAX_W);
    if (count < 0) return NULL;
    int stopped;
    Py_BEGIN_ALLOW_THREADS
    stopped = c4s_root(ctx, xw, ow, depth, moves, (int)count, io, deadline, out, scores);
    Py_END_ALLOW_THREADS
    if (limits_back(limits, io) < 0) return NULL;
    return Py_BuildValue("iNN", stopped, ints_out(out, 5), ints_out(scores, count));
}

/* negamax(handle, x, o, depth, alpha, beta, ply, limits, deadline) -> (stopped, score). */
static PyObject *py_negamax(PyObject *self, PyObject *args) {
    PyObject *capsule, *x, *o, *limits;
    int depth, ply;
    long long alpha, beta;
    double deadline;
    if (!PyArg_ParseTuple(args, "OOOiLLiO!d:negamax", &capsule, &x, &o, &depth, &alpha, &beta, &ply, &PyList_Type,
                          &limits, &deadline))
        return NULL;
    uint64_t xw[3], ow[3];
    int64_t io[7], out[1] = {0};
    void *ctx = board_args(capsule, x, o, xw, ow);
    if (ctx == NULL || limits_in(limits, io) < 0) return NULL;
    int stopped;
    Py_BEGIN_ALLOW_THREADS
    stopped = c4s_negamax(ctx, xw, ow, depth, alpha, beta, ply, io, deadline, out);
    Py_END_ALLOW_THREADS
    if (limits_back(limits, io) < 0) return NULL;
    return Py_BuildValue("iL", stopped, (long long)out[0]);
}

static PyObject *py_table_move(PyObject *self, PyObject *args) {
    PyObject *capsule, *x, *o;
    if (!PyArg_ParseTuple(args, "OOO:table_move", &capsule, &x, &o)) return NULL;
    uint64_t xw[3], ow[3];
    void *ctx = board_args(capsule, x, o, xw, ow);
    if (ctx == NULL) return NULL;
    return PyLong_FromLong(c4s_table_move(ctx, xw, ow));
}

/* For the differential tests: probe(handle, x, o, width) -> c4s_probe's 7 + 2 x width values. */
static PyObject *py_probe(PyObject *self, PyObject *args) {
    PyObject *capsule, *x, *o;
    int width;
    if (!PyArg_ParseTuple(args, "OOOi:probe", &capsule, &x, &o, &width)) return NULL;
    uint64_t xw[3], ow[3];
    void *ctx = board_args(capsule, x, o, xw, ow);
    if (ctx == NULL) return NULL;
    if (width < 1 || width > C4S_MAX_W) {
        PyErr_SetString(PyExc_ValueError, "probe: width out of range");
        return NULL;
    }
    int64_t out[7 + 2 * C4S_MAX_W] = {0};
    c4s_probe(ctx, xw, ow, out);
    return ints_out(out, 7 + 2 * width);
}

static PyMethodDef methods[] = {
    {"new", py_new, METH_VARARGS, "new(width, height, weights, table_limit) -> handle, or None"},
    {"set_path", py_set_path, METH_VARARGS, "set_path(handle, keys)"},
    {"root", py_root, METH_VARARGS, "root(handle, x, o, depth, moves, limits, deadline) -> (stopped, out, scores)"},
    {"negamax", py_negamax, METH_VARARGS,
     "negamax(handle, x, o, depth, alpha, beta, ply, limits, deadline) -> (stopped, score)"},
    {"table_move", py_table_move, METH_VARARGS, "table_move(handle, x, o) -> move, or 0"},
    {"probe", py_probe, METH_VARARGS, "probe(handle, x, o, width) -> 7 + 2 x width values (see c4s_probe)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, .m_name = "_connect4_search", .m_doc = "The Connect Four alpha-beta core.", .m_size = -1, .m_methods = methods};

PyMODINIT_FUNC PyInit__connect4_search(void) { return PyModule_Create(&module); }
