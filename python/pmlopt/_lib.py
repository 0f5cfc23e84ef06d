"""The ctypes binding of _libpmlopt.so (cmd/libpmlopt in the Go module).

Matrices go in as the caller's contiguous float64 buffers and come out as
numpy arrays that Go copies into; only the small scalar results cross as
JSON, in the keys of the CLI's --json. ctypes.CDLL releases the GIL for
every foreign call, so Python threads can run several calls at once.
"""

import ctypes
import json
import math
import os
import threading

import numpy as np

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_libpmlopt.so")
_lib = ctypes.CDLL(_PATH)

_i64 = ctypes.c_int64
_dbl_p = ctypes.c_void_p

_lib.pml_call.restype = _i64
_lib.pml_call.argtypes = [ctypes.c_char_p, ctypes.c_char_p, _dbl_p, _i64, _dbl_p, _dbl_p, _dbl_p, _i64, _i64]
_lib.pml_result_json.restype = ctypes.c_void_p
_lib.pml_result_json.argtypes = [_i64]
_lib.pml_result_matrix.restype = ctypes.c_int
_lib.pml_result_matrix.argtypes = [_i64, _i64, _dbl_p, _i64]
_lib.pml_result_free.restype = None
_lib.pml_result_free.argtypes = [_i64]
_lib.pml_free.restype = None
_lib.pml_free.argtypes = [ctypes.c_void_p]
_lib.pml_token_new.restype = _i64
_lib.pml_token_new.argtypes = []
_lib.pml_token_cancel.restype = None
_lib.pml_token_cancel.argtypes = [_i64]
_lib.pml_token_free.restype = None
_lib.pml_token_free.argtypes = [_i64]
_lib.pml_sample.restype = ctypes.c_void_p
_lib.pml_sample.argtypes = [_dbl_p, _i64, _i64, ctypes.c_void_p, _i64, ctypes.c_void_p, ctypes.c_int, ctypes.c_uint64]

# Keys whose string values are text, never the spelling of a number.
_TEXT_KEYS = frozenset(
    ["inputs", "outputs", "name", "notes", "failure", "solver", "status", "objective", "measure", "regime",
     "baseline", "parameter_name", "error", "detail"]
)


def _numbers(v, key=None):
    """Replaces the strings "inf" and "-inf" by math.inf and -math.inf."""
    if isinstance(v, dict):
        return {k: _numbers(x, k) for k, x in v.items()}
    if isinstance(v, list):
        return [_numbers(x, key) for x in v]
    if isinstance(v, str) and key not in _TEXT_KEYS:
        if v == "inf":
            return math.inf
        if v == "-inf":
            return -math.inf
    return v


def _wire(v):
    """A parameter as the library reads it (infinities spelt out)."""
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    if isinstance(v, (list, tuple)):
        return [_wire(x) for x in v]
    if isinstance(v, dict):
        return {k: _wire(x) for k, x in v.items()}
    if isinstance(v, np.generic):
        return _wire(v.item())
    return v


# timing.seconds is the time the last call of this thread spent in Go on
# its operation, for python/bench.
timing = threading.local()


class _Interrupted(Exception):
    pass


# _in_go counts the calls of call() whose worker has not yet returned from
# Go, so the tests can see that an interrupted call did not outlive call().
_in_go = 0
_in_go_lock = threading.Lock()


def _ptr(a):
    return None if a is None else a.ctypes.data


def _invoke(op, params, prior, utility, order, mechanism, n, m, token):
    """Runs one call; returns (result, matrices) or raises ValueError."""
    body = json.dumps({k: _wire(v) for k, v in params.items() if v is not None}).encode()
    h = _lib.pml_call(op.encode(), body, _ptr(prior), n, _ptr(utility), _ptr(order), _ptr(mechanism), m, token)
    try:
        p = _lib.pml_result_json(h)
        try:
            text = ctypes.string_at(p).decode("utf-8")
        finally:
            _lib.pml_free(p)
        doc = _numbers(json.loads(text))
        if "error" in doc:
            if doc["error"] == "interrupted":
                raise _Interrupted()
            raise ValueError(doc["error"])
        mats = []
        for k, (r, c) in enumerate(doc["shapes"]):
            a = np.empty((r, c), dtype=np.float64)
            if _lib.pml_result_matrix(h, k, _ptr(a), r * c) != 0:
                raise RuntimeError("pmlopt: result matrix %d could not be copied" % k)
            mats.append(a)
        return doc["result"], mats, doc.get("seconds")
    finally:
        _lib.pml_result_free(h)


def call(op, params, prior=None, utility=None, order=None, mechanism=None, n=0, m=0):
    """Calls op in the library and returns (result, matrices).

    In the main thread the call runs in a worker thread while this one
    waits in short, signal-aware steps: Ctrl-C (or any exception a Python
    signal handler raises, such as SystemExit from a SIGTERM handler)
    cancels the call's context in Go and is raised once Go has returned,
    with nothing of the call kept. Elsewhere (where Python delivers no
    signals) the call runs in the calling thread.

    Python raises KeyboardInterrupt on SIGINT only where SIGINT is handled:
    a process whose parent left SIGINT ignored (a script's `cmd &` in a
    shell without job control, nohup) has no Python SIGINT handler, and
    such a call runs to its end, as that parent asked.
    """
    if threading.current_thread() is not threading.main_thread():
        try:
            result, mats, timing.seconds = _invoke(op, params, prior, utility, order, mechanism, n, m, 0)
        except _Interrupted:  # pragma: no cover - no token, no cancellation
            raise KeyboardInterrupt from None
        return result, mats
    token = _lib.pml_token_new()
    box = {}
    done = threading.Event()

    def work():
        global _in_go
        with _in_go_lock:
            _in_go += 1
        try:
            box["value"] = _invoke(op, params, prior, utility, order, mechanism, n, m, token)
        except BaseException as e:  # handed to the waiting thread
            box["error"] = e
        finally:
            _lib.pml_token_free(token)
            with _in_go_lock:
                _in_go -= 1
            done.set()

    # The wait is on done, not on Thread.join: on CPython 3.11 an exception
    # that interrupts join marks a running thread as stopped (the handling
    # of bpo-45274), so is_alive could not tell when Go has returned.
    t = threading.Thread(target=work, name="pmlopt-" + op, daemon=True)
    try:
        t.start()
    except BaseException:
        _lib.pml_token_cancel(token)  # a worker that did start stops at once
        raise
    try:
        while not done.wait(0.05):
            pass
    except BaseException:
        # Go stops at its next check of the context; waiting for it keeps
        # the call from outliving this function. A second Ctrl-C while Go
        # winds down is absorbed: the first one is raised.
        _lib.pml_token_cancel(token)
        while True:
            try:
                if done.wait(0.05):
                    break
            except BaseException:
                pass
        raise
    if "error" in box:
        e = box["error"]
        if isinstance(e, _Interrupted):
            raise KeyboardInterrupt from None
        raise e
    result, mats, timing.seconds = box["value"]
    return result, mats


def sample(mechanism, inputs, seed):
    """Draws one output index of mechanism for each input index."""
    n, m = mechanism.shape
    k = inputs.shape[0]
    out = np.empty(k, dtype=np.int64)
    p = _lib.pml_sample(_ptr(mechanism), n, m, _ptr(inputs) if k else None, k, _ptr(out) if k else None,
                        0 if seed is None else 1, 0 if seed is None else seed)
    if p:
        try:
            msg = ctypes.string_at(p).decode("utf-8")
        finally:
            _lib.pml_free(p)
        raise ValueError(msg)
    return out
