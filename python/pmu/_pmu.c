// SPDX-License-Identifier: MIT
/*
 * The Python package's hot calls in C (pmu.backend() == "extension"): a region's enter and exit, by
 * handle and by name, as `with`, decorator and plain calls, and a set's read into a dict or a
 * preallocated buffer. The cold calls stay in Python (pmu/__init__.py), over the same libpmu.so.0.
 * Every call keeps the GIL: none blocks (a read(2) of a counter does not sleep), and libpmu itself is
 * thread-safe, regions being per thread.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <dlfcn.h>
#include <string.h>

#include <pmu.h>

#define STR_(x) #x
#define STR(x) STR_(x)

/* OSError(e, msg); NULL. */
static PyObject *oserror(int e, const char *msg)
{
	PyObject *text = PyUnicode_DecodeUTF8(msg, (Py_ssize_t)strlen(msg), "replace");
	PyObject *args = text ? Py_BuildValue("(iN)", e, text) : NULL;

	if (args) {
		PyErr_SetObject(PyExc_OSError, args);
		Py_DECREF(args);
	}
	return NULL;
}

/* OSError(errno, the library's message) for r = -errno; NULL. */
static PyObject *raise_pmu(int r)
{
	const char *msg = pmu_errmsg();

	return oserror(-r, msg && *msg ? msg : strerror(-r));
}

/* ---- regions ---------------------------------------------------------------------------------- */

typedef struct {
	PyObject_HEAD
	PyObject *name; /* str or bytes: by name (pmu_region_begin), or NULL: by handle */
	const char *cname; /* its UTF-8, kept by name */
	int handle;
	PyObject *calls[2]; /* its __exit__ and __enter__ (RegionCall), kept from their second use */
	unsigned char uses[2];
} Region;

/*
 * r.__enter__ and r.__exit__ as objects a region used more than once keeps: `with r:` then finds them
 * without making two bound methods each time (two allocations and frees, a third of what `with`
 * costs). They reference their region, which `with` drops before calling __enter__; the cycle of a
 * kept pair is the garbage collector's. A region used once (`with pmu.region(handle):`) keeps none.
 */
typedef struct {
	PyObject_HEAD
	Region *region;
	int enter;
	vectorcallfunc vectorcall;
} RegionCall;

/* *h = o as a region handle: 0, or -1 with TypeError or ValueError naming call. */
static int handle_of(PyObject *o, const char *call, int *h)
{
	long v;

	if (!PyLong_Check(o) || PyBool_Check(o)) {
		PyErr_Format(PyExc_TypeError, "%s(%R): the handle is an int", call, o);
		return -1;
	}
	v = PyLong_AsLong(o);
	if (v == -1 && PyErr_Occurred())
		PyErr_Clear();
	else if (v >= INT_MIN && v <= INT_MAX)
		return *h = (int)v, 0;
	PyErr_Format(PyExc_ValueError, "%s(%R): out of range (handles come from region_register())", call, o);
	return -1;
}

/* Region self by what: a name (str, bytes) or a handle (int). 0, or -1 with TypeError or ValueError. */
static int region_set(Region *self, PyObject *what)
{
	Py_ssize_t len = 0;

	Py_CLEAR(self->name);
	if (PyLong_Check(what) && !PyBool_Check(what))
		return handle_of(what, "region", &self->handle);
	if (PyUnicode_Check(what))
		self->cname = PyUnicode_AsUTF8AndSize(what, &len); /* kept in the str: no copy */
	else if (PyBytes_Check(what))
		self->cname = PyBytes_AS_STRING(what), len = PyBytes_GET_SIZE(what);
	else
		return PyErr_Format(PyExc_TypeError, "region(%R): a name (str) or a handle (int) is needed, not %s",
				    what, Py_TYPE(what)->tp_name), -1;
	if (!self->cname)
		return -1;
	if (strlen(self->cname) != (size_t)len)
		return PyErr_Format(PyExc_ValueError, "region(%R): a name with a NUL character", what), -1;
	self->name = Py_NewRef(what);
	return 0;
}

static int region_init(Region *self, PyObject *args, PyObject *kw)
{
	PyObject *what;

	if (kw && PyDict_GET_SIZE(kw)) {
		PyErr_SetString(PyExc_TypeError, "region() takes no keyword arguments");
		return -1;
	}
	if (!PyArg_ParseTuple(args, "O:region", &what))
		return -1;
	return region_set(self, what);
}

/* The regions region(name) made, by name: a process has at most 256 names, and this keeps 512. */
static PyObject *by_name;
#define BY_NAME_MAX 512

/*
 * region(what) without the argument tuple tp_new and tp_init need; by a str name, the region made
 * before: `with pmu.region("x"):` then costs what a region kept does (regions hold no state of
 * their own, so one serves every thread).
 */
static PyObject *region_vectorcall(PyObject *type, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
	Py_ssize_t n = PyVectorcall_NARGS(nargsf);
	PyObject *self;

	if ((kwnames && PyTuple_GET_SIZE(kwnames)) || n != 1)
		return PyErr_Format(PyExc_TypeError, "region() takes one argument, a name or a handle (%zd given%s)",
				    n, kwnames && PyTuple_GET_SIZE(kwnames) ? ", and keywords" : "");
	if (PyUnicode_CheckExact(args[0])) {
		self = PyDict_GetItemWithError(by_name, args[0]);
		if (self || PyErr_Occurred())
			return Py_XNewRef(self);
	}
	self = ((PyTypeObject *)type)->tp_alloc((PyTypeObject *)type, 0);
	if (self && region_set((Region *)self, args[0]) < 0)
		Py_CLEAR(self);
	if (self && PyUnicode_CheckExact(args[0]) && PyDict_GET_SIZE(by_name) < BY_NAME_MAX &&
	    PyDict_SetItem(by_name, args[0], self) < 0)
		Py_CLEAR(self);
	return self;
}

static int region_traverse(Region *self, visitproc visit, void *arg)
{
	Py_VISIT(self->calls[0]);
	Py_VISIT(self->calls[1]);
	return 0;
}

static int region_clear(Region *self)
{
	Py_CLEAR(self->calls[0]);
	Py_CLEAR(self->calls[1]);
	return 0;
}

static void region_dealloc(Region *self)
{
	PyObject_GC_UnTrack(self);
	region_clear(self);
	Py_CLEAR(self->name);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Begins (enter != 0) or ends the region: 0, or -1 with OSError set. */
static int region_do(Region *self, int enter)
{
	int r;

	if (self->name)
		r = enter ? pmu_region_begin(self->cname) : pmu_region_end(self->cname);
	else
		r = enter ? pmu_region_enter(self->handle) : pmu_region_exit(self->handle);
	if (r < 0) {
		raise_pmu(r);
		return -1;
	}
	return 0;
}

static PyObject *region_call_vc(PyObject *o, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
	RegionCall *c = (RegionCall *)o;

	(void)args, (void)nargsf, (void)kwnames;
	if (!c->region) /* only where the collector cleared a cycle */
		return PyErr_Format(PyExc_ReferenceError, "region.%s: its region is gone",
				    c->enter ? "__enter__" : "__exit__");
	if (region_do(c->region, c->enter))
		return NULL;
	return Py_NewRef(c->enter ? (PyObject *)c->region : Py_None);
}

static int region_call_traverse(RegionCall *self, visitproc visit, void *arg)
{
	Py_VISIT(self->region);
	return 0;
}

static int region_call_clear(RegionCall *self)
{
	Py_CLEAR(self->region);
	return 0;
}

static void region_call_dealloc(RegionCall *self)
{
	PyObject_GC_UnTrack(self);
	region_call_clear(self);
	PyObject_GC_Del(self);
}

static PyTypeObject region_call_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "pmu._pmu.RegionCall",
	.tp_basicsize = sizeof(RegionCall),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_HAVE_GC,
	.tp_doc = "A region's __enter__ or __exit__.",
	.tp_dealloc = (destructor)region_call_dealloc,
	.tp_traverse = (traverseproc)region_call_traverse,
	.tp_clear = (inquiry)region_call_clear,
	.tp_call = PyVectorcall_Call,
	.tp_vectorcall_offset = offsetof(RegionCall, vectorcall),
};

/* The descriptors region.__enter__ (enter 1) and region.__exit__ (0): the region's RegionCall. */
typedef struct {
	PyObject_HEAD
	int enter;
} RegionSlot;

static PyObject *region_slot_get(PyObject *o, PyObject *obj, PyObject *type)
{
	RegionSlot *slot = (RegionSlot *)o;
	Region *r = (Region *)obj;

	(void)type;
	if (!obj || obj == Py_None)
		return Py_NewRef(o);
	if (r->calls[slot->enter])
		return Py_NewRef(r->calls[slot->enter]);
	RegionCall *c = PyObject_GC_New(RegionCall, &region_call_type);

	if (!c)
		return NULL;
	c->region = (Region *)Py_NewRef(r);
	c->enter = slot->enter;
	c->vectorcall = region_call_vc;
	PyObject_GC_Track(c);
	if (r->uses[slot->enter]++)
		r->calls[slot->enter] = Py_NewRef(c);
	return (PyObject *)c;
}

static PyTypeObject region_slot_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "pmu._pmu.RegionSlot",
	.tp_basicsize = sizeof(RegionSlot),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_descr_get = region_slot_get,
};

static RegionSlot region_slots[2] = {
	{ PyObject_HEAD_INIT(&region_slot_type) 0 },
	{ PyObject_HEAD_INIT(&region_slot_type) 1 },
};

static PyObject *region_get_name(Region *self, void *unused)
{
	(void)unused;
	if (!self->name)
		Py_RETURN_NONE;
	if (PyUnicode_Check(self->name))
		return Py_NewRef(self->name);
	return PyUnicode_DecodeUTF8(self->cname, PyBytes_GET_SIZE(self->name), "replace");
}

static PyObject *region_get_handle(Region *self, void *unused)
{
	(void)unused;
	if (self->name)
		Py_RETURN_NONE;
	return PyLong_FromLong(self->handle);
}

static PyTypeObject decorated_type;
static PyObject *update_wrapper; /* functools.update_wrapper */

/* region(...)(fn): fn wrapped, each call inside the region, with fn's name, doc and __wrapped__. */
static PyObject *region_call(PyObject *self, PyObject *args, PyObject *kw)
{
	PyObject *fn, *dec, *res;

	if (!PyArg_ParseTuple(args, "O:region.__call__", &fn))
		return NULL;
	(void)kw;
	dec = PyObject_CallFunctionObjArgs((PyObject *)&decorated_type, self, fn, NULL);
	if (!dec)
		return NULL;
	res = PyObject_CallFunctionObjArgs(update_wrapper, dec, fn, NULL);
	Py_DECREF(dec);
	return res;
}

static PyObject *region_repr(Region *self)
{
	if (!self->name)
		return PyUnicode_FromFormat("region(%d)", self->handle);
	PyObject *name = region_get_name(self, NULL);
	PyObject *r = name ? PyUnicode_FromFormat("region(%R)", name) : NULL;

	Py_XDECREF(name);
	return r;
}

static PyGetSetDef region_getset[] = {
	{ "name", (getter)region_get_name, NULL, "the region's name, or None when by handle", NULL },
	{ "handle", (getter)region_get_handle, NULL, "the region's handle, or None when by name", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyTypeObject region_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "pmu.region",
	.tp_basicsize = sizeof(Region),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
	.tp_doc = "region(name) or region(handle): a region by name (pmu_region_begin/end) or by handle (an int\n"
		  "from region_register(): pmu_region_enter/exit), as a context manager and a decorator.",
	.tp_call = region_call,
	.tp_repr = (reprfunc)region_repr,
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc)region_init,
	.tp_vectorcall = region_vectorcall,
	.tp_dealloc = (destructor)region_dealloc,
	.tp_traverse = (traverseproc)region_traverse,
	.tp_clear = (inquiry)region_clear,
	.tp_getset = region_getset,
};

/* A function wrapped in a region: each call begins it, calls, and ends it (also when the call raises). */
typedef struct {
	PyObject_HEAD
	Region *region;
	PyObject *fn;
	PyObject *dict; /* functools.update_wrapper's __name__, __doc__, __wrapped__ */
	vectorcallfunc vectorcall;
} Decorated;

static PyObject *decorated_call(PyObject *o, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
	Decorated *self = (Decorated *)o;

	if (region_do(self->region, 1))
		return NULL;
	PyObject *res = PyObject_Vectorcall(self->fn, args, nargsf, kwnames);

	if (res) {
		if (region_do(self->region, 0))
			Py_CLEAR(res);
		return res;
	}
	PyObject *type, *value, *tb;

	PyErr_Fetch(&type, &value, &tb);
	if (region_do(self->region, 0))
		PyErr_Clear(); /* the call's own exception says more */
	PyErr_Restore(type, value, tb);
	return NULL;
}

static PyObject *decorated_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	PyObject *region, *fn;

	if (!PyArg_ParseTuple(args, "O!O:Decorated", &region_type, &region, &fn))
		return NULL;
	(void)kw;
	if (!PyCallable_Check(fn))
		return PyErr_Format(PyExc_TypeError, "region(...)(%R): not callable", fn);
	Decorated *self = (Decorated *)tp->tp_alloc(tp, 0);

	if (!self)
		return NULL;
	self->region = (Region *)Py_NewRef(region);
	self->fn = Py_NewRef(fn);
	self->vectorcall = decorated_call;
	return (PyObject *)self;
}

static int decorated_traverse(Decorated *self, visitproc visit, void *arg)
{
	Py_VISIT(self->region);
	Py_VISIT(self->fn);
	Py_VISIT(self->dict);
	return 0;
}

static int decorated_clear(Decorated *self)
{
	Py_CLEAR(self->region);
	Py_CLEAR(self->fn);
	Py_CLEAR(self->dict);
	return 0;
}

static void decorated_dealloc(Decorated *self)
{
	PyObject_GC_UnTrack(self);
	decorated_clear(self);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/* A method when the function is one: bound to the instance, as a plain function would be. */
static PyObject *decorated_get(PyObject *self, PyObject *obj, PyObject *type)
{
	(void)type;
	if (!obj || obj == Py_None)
		return Py_NewRef(self);
	return PyMethod_New(self, obj);
}

static PyGetSetDef decorated_getset[] = {
	{ "__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyMemberDef decorated_members[] = {
	{ "region", T_OBJECT, offsetof(Decorated, region), READONLY, "the region of each call" },
	{ NULL, 0, 0, 0, NULL },
};

static PyTypeObject decorated_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "pmu._pmu.Decorated",
	.tp_basicsize = sizeof(Decorated),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
	.tp_doc = "Decorated(region, fn): fn, each call inside the region.",
	.tp_new = decorated_new,
	.tp_dealloc = (destructor)decorated_dealloc,
	.tp_traverse = (traverseproc)decorated_traverse,
	.tp_clear = (inquiry)decorated_clear,
	.tp_call = PyVectorcall_Call,
	.tp_vectorcall_offset = offsetof(Decorated, vectorcall),
	.tp_descr_get = decorated_get,
	.tp_dictoffset = offsetof(Decorated, dict),
	.tp_getset = decorated_getset,
	.tp_members = decorated_members,
};

/* pmu_region_enter(h) (enter 1) or pmu_region_exit(h) (0) for the module's functions of those names. */
static PyObject *handle_call(PyObject *h, int enter)
{
	int v, r;

	if (handle_of(h, enter ? "region_enter" : "region_exit", &v))
		return NULL;
	r = enter ? pmu_region_enter(v) : pmu_region_exit(v);
	return r < 0 ? raise_pmu(r) : Py_NewRef(Py_None);
}

static PyObject *mod_region_enter(PyObject *m, PyObject *h)
{
	(void)m;
	return handle_call(h, 1);
}

static PyObject *mod_region_exit(PyObject *m, PyObject *h)
{
	(void)m;
	return handle_call(h, 0);
}

/* ---- sets ------------------------------------------------------------------------------------- */

typedef struct {
	PyObject_HEAD
	struct pmu_set *set;
	PyObject *names; /* list of str */
	uint64_t *values;
	unsigned n;
	PyObject *last;  /* the last dict read() gave: filled again while no one else holds it */
	PyObject *out;   /* the last buffer read(out) filled, held (so not resized) until another or close */
	Py_buffer view;
} Set;

static void set_close_(Set *self)
{
	Py_CLEAR(self->last);
	if (self->out) {
		PyBuffer_Release(&self->view);
		Py_CLEAR(self->out);
	}
	if (self->set)
		pmu_close(self->set);
	self->set = NULL;
	PyMem_Free(self->values);
	self->values = NULL;
}

static int set_init(Set *self, PyObject *args, PyObject *kw)
{
	const char *events;
	struct pmu_set *set;
	int r;

	if (!PyArg_ParseTuple(args, "s:Set", &events))
		return -1;
	(void)kw;
	set_close_(self);
	Py_CLEAR(self->names);
	r = pmu_open(&set, events);
	if (r < 0)
		return raise_pmu(r), -1;
	self->set = set;
	self->n = pmu_count(set);
	self->values = PyMem_Calloc(self->n ? self->n : 1, sizeof(uint64_t));
	self->names = PyList_New(self->n);
	if (!self->values || !self->names)
		return PyErr_NoMemory(), -1;
	for (unsigned i = 0; i < self->n; i++) {
		const char *name = pmu_name(set, i);
		PyObject *s = PyUnicode_DecodeUTF8(name, (Py_ssize_t)strlen(name), "replace");

		if (!s)
			return -1;
		PyUnicode_InternInPlace(&s);
		PyList_SET_ITEM(self->names, i, s);
	}
	return 0;
}

static void set_dealloc(Set *self)
{
	set_close_(self);
	Py_CLEAR(self->names);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Each count as a dict by name: the last one again when the caller kept no reference to it. */
static PyObject *read_dict(Set *self)
{
	int r = pmu_read(self->set, self->values);

	if (r < 0)
		return raise_pmu(r);
	if (!self->last || Py_REFCNT(self->last) > 1) {
		Py_XSETREF(self->last, PyDict_New());
		if (!self->last)
			return NULL;
	}
	for (unsigned i = 0; i < self->n; i++) {
		PyObject *v = PyLong_FromUnsignedLongLong(self->values[i]);

		if (!v || PyDict_SetItem(self->last, PyList_GET_ITEM(self->names, i), v) < 0) {
			Py_XDECREF(v);
			Py_CLEAR(self->last);
			return NULL;
		}
		Py_DECREF(v);
	}
	return Py_NewRef(self->last);
}

/* out's buffer, held from one read(out) to the next with the same out (array('Q') cannot be resized
 * while held): only the first read of a buffer pays the buffer protocol. NULL: an error. */
static void *out_buffer(Set *self, PyObject *out)
{
	if (out == self->out)
		return self->view.buf;
	if (self->out) {
		PyBuffer_Release(&self->view);
		Py_CLEAR(self->out);
	}
	Py_buffer b;

	if (PyObject_GetBuffer(out, &b, PyBUF_CONTIG | PyBUF_FORMAT) < 0) {
		PyErr_Format(PyExc_ValueError, "read(out): out (%s) is not a writable buffer", Py_TYPE(out)->tp_name);
		return NULL;
	}
	const char *f = b.format ? b.format : "B";
	size_t fl = strlen(f);

	if (b.itemsize != 8 || !fl || !strchr("QL", f[fl - 1]) || (fl > 1 && !strchr("@=<", f[0])) ||
	    b.len < (Py_ssize_t)(self->n * sizeof(uint64_t))) {
		PyErr_Format(PyExc_ValueError, "read(out): out holds %zd items of format '%s'; it needs %u "
			     "unsigned 64-bit ones ('Q'), as Set.buffer() makes",
			     b.itemsize ? b.len / b.itemsize : 0, f, self->n);
		PyBuffer_Release(&b);
		return NULL;
	}
	self->view = b;
	self->out = Py_NewRef(out);
	return b.buf;
}

/* Into out: a writable, contiguous buffer of at least n unsigned 64-bit items (array('Q'), numpy uint64). */
static PyObject *read_into(Set *self, PyObject *out)
{
	void *buf = out_buffer(self, out);
	int r;

	if (!buf)
		return NULL;
	r = pmu_read(self->set, buf);
	return r < 0 ? raise_pmu(r) : Py_NewRef(out);
}

static PyObject *set_read(Set *self, PyObject *const *args, Py_ssize_t nargs)
{
	if (!self->set)
		return oserror(EBADF, "the set is closed");
	if (nargs > 1)
		return PyErr_Format(PyExc_TypeError, "read() takes at most 1 argument (%zd given)", nargs);
	if (nargs == 0 || args[0] == Py_None)
		return read_dict(self);
	return read_into(self, args[0]);
}

static PyObject *set_close(Set *self, PyObject *unused)
{
	(void)unused;
	set_close_(self);
	Py_RETURN_NONE;
}

static PyObject *set_get_handle(Set *self, void *unused)
{
	(void)unused;
	if (!self->set)
		Py_RETURN_NONE;
	return PyLong_FromVoidPtr(self->set);
}

static PyMethodDef set_methods[] = {
	{ "read", (PyCFunction)(void (*)(void))set_read, METH_FASTCALL,
	  "read(out=None): each count as a dict by name, or into out, a preallocated uint64 buffer." },
	{ "close", (PyCFunction)set_close, METH_NOARGS, "Closes the events." },
	{ NULL, NULL, 0, NULL },
};

static PyMemberDef set_members[] = {
	{ "names", T_OBJECT, offsetof(Set, names), READONLY, "the events' names" },
	{ NULL, 0, 0, 0, NULL },
};

static PyGetSetDef set_getset[] = {
	{ "handle", (getter)set_get_handle, NULL, "the struct pmu_set pointer, None once closed", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyTypeObject set_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "pmu.Set",
	.tp_basicsize = sizeof(Set),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "Set(events): the events, counting for the calling thread (pmu_open); a context manager\n"
		  "that closes them. read() gives each count by name, read(out) writes them into a\n"
		  "preallocated buffer (Set.buffer()) and returns it.",
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc)set_init,
	.tp_dealloc = (destructor)set_dealloc,
	.tp_methods = set_methods,
	.tp_members = set_members,
	.tp_getset = set_getset,
};

/* ---- the module ------------------------------------------------------------------------------- */

/* The path of the libpmu.so.0 this module was linked with, for ctypes to load the same one. */
static PyObject *mod_library(PyObject *m, PyObject *unused)
{
	Dl_info info;

	(void)m, (void)unused;
	if (!dladdr((void *)pmu_version, &info) || !info.dli_fname)
		return PyErr_Format(PyExc_ImportError, "libpmu.so.0: dladdr() did not find it");
	return PyUnicode_DecodeFSDefault(info.dli_fname);
}

/* extend(Set, {name: function}): Set's cold methods, written once in Python for both backends, in
 * its own dict (a subclass would cost every hot call a slower lookup). */
static PyObject *mod_extend(PyObject *m, PyObject *args)
{
	PyTypeObject *tp;
	PyObject *ns, *k, *v;
	Py_ssize_t pos = 0;

	(void)m;
	if (!PyArg_ParseTuple(args, "O!O!:extend", &PyType_Type, &tp, &PyDict_Type, &ns))
		return NULL;
	if (tp != &set_type)
		return PyErr_Format(PyExc_TypeError, "extend(%s): only Set", tp->tp_name);
	while (PyDict_Next(ns, &pos, &k, &v))
		if (!PyDict_Contains(tp->tp_dict, k) && PyDict_SetItem(tp->tp_dict, k, v) < 0)
			return NULL;
	PyType_Modified(tp);
	Py_RETURN_NONE;
}

static PyMethodDef mod_methods[] = {
	{ "extend", mod_extend, METH_VARARGS, "extend(Set, {name: function}): adds Set's cold methods" },
	{ "region_enter", mod_region_enter, METH_O, "pmu_region_enter(handle)" },
	{ "region_exit", mod_region_exit, METH_O, "pmu_region_exit(handle)" },
	{ "library", mod_library, METH_NOARGS, "the path of the libpmu.so.0 in use" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT, .m_name = "pmu._pmu", .m_doc = "libpmu's hot calls in C", .m_size = -1,
	.m_methods = mod_methods,
};

PyMODINIT_FUNC PyInit__pmu(void)
{
	PyTypeObject *types[] = { &region_type, &decorated_type, &set_type, &region_call_type, &region_slot_type };
	const char *names[] = { "region", "Decorated", "Set", "RegionCall", "RegionSlot" };
	PyObject *functools = PyImport_ImportModule("functools");
	PyObject *m;

	update_wrapper = functools ? PyObject_GetAttrString(functools, "update_wrapper") : NULL;
	Py_XDECREF(functools);
	by_name = update_wrapper ? PyDict_New() : NULL;
	m = by_name ? PyModule_Create(&module) : NULL;
	if (!m)
		return NULL;
	for (size_t i = 0; i < 5; i++)
		if (PyType_Ready(types[i]) < 0 || PyModule_AddObjectRef(m, names[i], (PyObject *)types[i]) < 0)
			goto fail;
	if (PyDict_SetItemString(region_type.tp_dict, "__exit__", (PyObject *)&region_slots[0]) < 0 ||
	    PyDict_SetItemString(region_type.tp_dict, "__enter__", (PyObject *)&region_slots[1]) < 0)
		goto fail;
	PyType_Modified(&region_type);
	/* The headers this module was built with: __init__.py compares them with the library's version. */
	if (PyModule_AddStringConstant(m, "built_with", STR(PMU_VERSION_MAJOR) "." STR(PMU_VERSION_MINOR)
				       "." STR(PMU_VERSION_PATCH)) < 0)
		goto fail;
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}
