/* What the three Python modules (py_*.c) share: a handle kept in a capsule that frees it, and
 * Python ints in and out of C arrays. Each py_*.c includes Python first, then this, then its core. */
#ifndef ARENA_PY_COMMON_H
#define ARENA_PY_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

/* A search context as a capsule named ``name``: ``release`` frees it when the capsule goes. None for
 * a NULL context (a size outside the core, or no memory). */
static inline PyObject *handle_new(void *ctx, const char *name, PyCapsule_Destructor release) {
    if (ctx == NULL) Py_RETURN_NONE;
    return PyCapsule_New(ctx, name, release);
}

/* The context inside ``capsule`` (NULL with TypeError set for anything else). */
static inline void *handle_of(PyObject *capsule, const char *name) {
    if (!PyCapsule_IsValid(capsule, name)) {
        PyErr_Format(PyExc_TypeError, "expected a %s handle", name);
        return NULL;
    }
    return PyCapsule_GetPointer(capsule, name);
}

/* The ints of ``sequence`` into ``out``, at most ``max`` of them: how many, or -1 with an exception. */
static inline Py_ssize_t ints_in(PyObject *sequence, int64_t *out, Py_ssize_t max) {
    PyObject *fast = PySequence_Fast(sequence, "expected a sequence of ints");
    if (fast == NULL) return -1;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(fast);
    if (count > max) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "expected at most %zd ints, got %zd", max, count);
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(fast);
    for (Py_ssize_t i = 0; i < count; i++) {
        out[i] = PyLong_AsLongLong(items[i]);
        if (out[i] == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    return count;
}

/* The root's moves (a sequence of at most ``max`` ints, ``max`` <= 64) into ``moves``: how many, or -1
 * with an exception (also for none: there is nothing to search). */
static inline Py_ssize_t root_moves_in(PyObject *sequence, int32_t *moves, Py_ssize_t max) {
    int64_t wide[64];
    if (max > 64) {
        PyErr_SetString(PyExc_SystemError, "root_moves_in: at most 64 moves");
        return -1;
    }
    Py_ssize_t count = ints_in(sequence, wide, max);
    if (count == 0) PyErr_SetString(PyExc_ValueError, "root: no moves to search");
    if (count <= 0) return -1;
    for (Py_ssize_t i = 0; i < count; i++) moves[i] = (int32_t)wide[i];
    return count;
}

/* ``count`` int64 values as a tuple of ints. */
static inline PyObject *ints_out(const int64_t *values, Py_ssize_t count) {
    PyObject *tuple = PyTuple_New(count);
    if (tuple == NULL) return NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyLong_FromLongLong(values[i]);
        if (item == NULL) {
            Py_DECREF(tuple);
            return NULL;
        }
        PyTuple_SET_ITEM(tuple, i, item);
    }
    return tuple;
}

/* The limits list a search call takes (nodes, next_check, max_nodes, contempt, root_turn,
 * reductions, root_margin): read into io[7]; 0, or -1 with an exception. */
static inline int limits_in(PyObject *list, int64_t io[7]) {
    if (!PyList_Check(list) || PyList_GET_SIZE(list) != 7) {
        PyErr_SetString(PyExc_TypeError, "limits: expected a list of 7 ints");
        return -1;
    }
    return ints_in(list, io, 7) == 7 ? 0 : -1;
}

/* The search's nodes and next_check written back into the limits list; 0, or -1 with an exception. */
static inline int limits_back(PyObject *list, const int64_t io[7]) {
    for (Py_ssize_t i = 0; i < 2; i++) {
        PyObject *item = PyLong_FromLongLong(io[i]);
        if (item == NULL || PyList_SetItem(list, i, item) < 0) return -1;
    }
    return 0;
}

/* A non-negative Python int of up to 192 bits as three 64-bit words, lowest first; 0, or -1 with an
 * exception (a negative or wider int). */
static inline int words_of(PyObject *value, uint64_t words[3]) {
    if (!PyLong_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "expected an int board");
        return -1;
    }
    Py_INCREF(value);
    PyObject *shift = PyLong_FromLong(64);
    if (shift == NULL) {
        Py_DECREF(value);
        return -1;
    }
    for (int i = 0; i < 3; i++) {
        words[i] = PyLong_AsUnsignedLongLongMask(value);
        PyObject *rest = PyNumber_Rshift(value, shift);
        Py_DECREF(value);
        if (rest == NULL || (words[i] == (uint64_t)-1 && PyErr_Occurred())) {
            Py_XDECREF(rest);
            Py_DECREF(shift);
            return -1;
        }
        value = rest;
    }
    Py_DECREF(shift);
    int wider = PyObject_IsTrue(value); /* bits left over (a negative int never shifts to 0) */
    Py_DECREF(value);
    if (wider != 0) {
        if (wider > 0) PyErr_SetString(PyExc_ValueError, "a board is a non-negative int of at most 192 bits");
        return -1;
    }
    return 0;
}

/* Three 64-bit words, lowest first, as one Python int. */
static inline PyObject *int_of(const uint64_t words[3]) {
    PyObject *result = PyLong_FromUnsignedLongLong(words[2]);
    for (int i = 1; i >= 0 && result != NULL; i--) {
        PyObject *shift = PyLong_FromLong(64), *word = PyLong_FromUnsignedLongLong(words[i]);
        PyObject *shifted = shift && word ? PyNumber_Lshift(result, shift) : NULL;
        PyObject *next = shifted ? PyNumber_Or(shifted, word) : NULL;
        Py_XDECREF(shift);
        Py_XDECREF(word);
        Py_XDECREF(shifted);
        Py_DECREF(result);
        result = next;
    }
    return result;
}

#endif
