/* The Python module ``engines.native._betsy_search``: betsy_search.c's interface for
 * engines/search/native_betsy.py. Positions travel as Python keys (Position.key()) in ``nbytes``
 * little-endian bytes; the searches release the interpreter's lock while they run. */
#include "py_common.h"
#include "betsy_search.c"

#define CAPSULE "arena.betsy_search"

static void release(PyObject *capsule) { betsy_free(PyCapsule_GetPointer(capsule, CAPSULE)); }

/* The bytes of a key at this context's size: the side to move's bit, then a bit per cell and colour. */
static int key_bytes(const Ctx *s) { return (2 * s->cells + 8) / 8; }

/* The context, and checks that ``key`` holds a whole position of its size. */
static Ctx *context(PyObject *capsule, Py_ssize_t key_length) {
    Ctx *s = handle_of(capsule, CAPSULE);
    if (s != NULL && key_length < key_bytes(s)) {
        PyErr_Format(PyExc_ValueError, "a key of n = %d takes %d bytes, not %zd", s->n, key_bytes(s), key_length);
        return NULL;
    }
    return s;
}

static PyObject *py_new(PyObject *self, PyObject *args) {
    int n, blue_priority;
    PyObject *values;
    long long table_limit;
    if (!PyArg_ParseTuple(args, "iiOL:new", &n, &blue_priority, &values, &table_limit)) return NULL;
    if (n < 1 || n > MAXN) Py_RETURN_NONE;
    int supply = n * (n + 3) / 2;
    Py_ssize_t expected = 3 * (n + 1) + 4 + 2 * supply + 1;
    int64_t *eval = PyMem_Malloc(sizeof(int64_t) * (size_t)expected);
    if (eval == NULL) return PyErr_NoMemory();
    Py_ssize_t count = ints_in(values, eval, expected);
    if (count >= 0 && count != expected)
        PyErr_Format(PyExc_ValueError, "n = %d takes %zd evaluation values, not %zd", n, expected, count);
    PyObject *result = NULL;
    if (!PyErr_Occurred()) result = handle_new(betsy_new(n, blue_priority, eval, table_limit), CAPSULE, release);
    PyMem_Free(eval);
    return result;
}

static PyObject *py_set_path(PyObject *self, PyObject *args) {
    PyObject *capsule;
    const char *keys;
    Py_ssize_t length;
    int count, stride;
    if (!PyArg_ParseTuple(args, "Oy#ii:set_path", &capsule, &keys, &length, &count, &stride)) return NULL;
    Ctx *s = context(capsule, stride);
    if (s == NULL) return NULL;
    if (count < 0 || (Py_ssize_t)count * stride > length) {
        PyErr_SetString(PyExc_ValueError, "set_path: fewer key bytes than count x stride");
        return NULL;
    }
    betsy_set_path(s, (const uint8_t *)keys, count, stride);
    Py_RETURN_NONE;
}

/* root(handle, key, depth, moves, limits, deadline) -> (stopped, out[5], scores): betsy_root. */
static PyObject *py_root(PyObject *self, PyObject *args) {
    PyObject *capsule, *moves_in, *limits;
    const char *key;
    Py_ssize_t length;
    int depth;
    double deadline;
    if (!PyArg_ParseTuple(args, "Oy#iOO!d:root", &capsule, &key, &length, &depth, &moves_in, &PyList_Type,
                          &limits, &deadline))
        return NULL;
    Ctx *s = context(capsule, length);
    int64_t io[7], out[5] = {0}, scores[2 * MAXN] = {0};
    int32_t moves[2 * MAXN];
    if (s == NULL || limits_in(limits, io) < 0) return NULL;
    Py_ssize_t count = root_moves_in(moves_in, moves, 2 * MAXN);
    if (count < 0) return NULL;
    int stopped;
    Py_BEGIN_ALLOW_THREADS
    stopped = betsy_root(s, (const uint8_t *)key, depth, moves, (int)count, io, deadline, out, scores);
    Py_END_ALLOW_THREADS
    if (limits_back(limits, io) < 0) return NULL;
    return Py_BuildValue("iNN", stopped, ints_out(out, 5), ints_out(scores, count));
}

/* negamax(handle, key, depth, alpha, beta, ply, limits, deadline) -> (stopped, score). */
static PyObject *py_negamax(PyObject *self, PyObject *args) {
    PyObject *capsule, *limits;
    const char *key;
    Py_ssize_t length;
    int depth, ply;
    long long alpha, beta;
    double deadline;
    if (!PyArg_ParseTuple(args, "Oy#iLLiO!d:negamax", &capsule, &key, &length, &depth, &alpha, &beta, &ply,
                          &PyList_Type, &limits, &deadline))
        return NULL;
    Ctx *s = context(capsule, length);
    int64_t io[7], out[1] = {0};
    if (s == NULL || limits_in(limits, io) < 0) return NULL;
    int stopped;
    Py_BEGIN_ALLOW_THREADS
    stopped = betsy_negamax(s, (const uint8_t *)key, depth, alpha, beta, ply, io, deadline, out);
    Py_END_ALLOW_THREADS
    if (limits_back(limits, io) < 0) return NULL;
    return Py_BuildValue("iL", stopped, (long long)out[0]);
}

static PyObject *py_table_move(PyObject *self, PyObject *args) {
    PyObject *capsule;
    const char *key;
    Py_ssize_t length;
    if (!PyArg_ParseTuple(args, "Oy#:table_move", &capsule, &key, &length)) return NULL;
    Ctx *s = context(capsule, length);
    if (s == NULL) return NULL;
    return PyLong_FromLong(betsy_table_move(s, (const uint8_t *)key));
}

/* For the differential tests: moves(handle, key) -> the legal moves; play(handle, key, move) ->
 * (winner, the key after it); probe(handle, key) -> betsy_probe's five values. */
static PyObject *py_moves(PyObject *self, PyObject *args) {
    PyObject *capsule;
    const char *key;
    Py_ssize_t length;
    if (!PyArg_ParseTuple(args, "Oy#:moves", &capsule, &key, &length)) return NULL;
    Ctx *s = context(capsule, length);
    if (s == NULL) return NULL;
    int32_t moves[2 * MAXN];
    int64_t wide[2 * MAXN];
    int count = betsy_moves(s, (const uint8_t *)key, moves);
    for (int i = 0; i < count; i++) wide[i] = moves[i];
    return ints_out(wide, count);
}

static PyObject *py_play(PyObject *self, PyObject *args) {
    PyObject *capsule;
    const char *key;
    Py_ssize_t length;
    int move;
    if (!PyArg_ParseTuple(args, "Oy#i:play", &capsule, &key, &length, &move)) return NULL;
    Ctx *s = context(capsule, length);
    if (s == NULL) return NULL;
    int nbytes = key_bytes(s);
    uint8_t after[(2 * MAXN * (MAXN + 3) + 8) / 8];
    int winner = betsy_play(s, (const uint8_t *)key, move, after, nbytes);
    return Py_BuildValue("iy#", winner, (const char *)after, (Py_ssize_t)nbytes);
}

static PyObject *py_probe(PyObject *self, PyObject *args) {
    PyObject *capsule;
    const char *key;
    Py_ssize_t length;
    if (!PyArg_ParseTuple(args, "Oy#:probe", &capsule, &key, &length)) return NULL;
    Ctx *s = context(capsule, length);
    if (s == NULL) return NULL;
    int64_t out[5];
    betsy_probe(s, (const uint8_t *)key, out);
    return ints_out(out, 5);
}

static PyMethodDef methods[] = {
    {"new", py_new, METH_VARARGS, "new(n, blue_priority, evaluation, table_limit) -> handle, or None"},
    {"set_path", py_set_path, METH_VARARGS, "set_path(handle, keys, count, stride)"},
    {"root", py_root, METH_VARARGS, "root(handle, key, depth, moves, limits, deadline) -> (stopped, out, scores)"},
    {"negamax", py_negamax, METH_VARARGS,
     "negamax(handle, key, depth, alpha, beta, ply, limits, deadline) -> (stopped, score)"},
    {"table_move", py_table_move, METH_VARARGS, "table_move(handle, key) -> move, or 0"},
    {"moves", py_moves, METH_VARARGS, "moves(handle, key) -> the legal moves"},
    {"play", py_play, METH_VARARGS, "play(handle, key, move) -> (winner, key after)"},
    {"probe", py_probe, METH_VARARGS, "probe(handle, key) -> five values (see betsy_probe)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, .m_name = "_betsy_search", .m_doc = "The Betsy alpha-beta core.", .m_size = -1, .m_methods = methods};

PyMODINIT_FUNC PyInit__betsy_search(void) { return PyModule_Create(&module); }
