/* The default measure's inner loops, in C: hashing the words of a batch and the windows of a
 * few words (word_hashing.py, word_runs.py), joining a slice of windows with an index of
 * segments and keeping that index's bitmap, directory, crowd counts, merges and searches
 * (segment_index.py), a radix sort of 64-bit keys, and measuring candidate pairs on their word
 * hashes up to a bound, or numbering their words for rapidfuzz (verify.py).
 *
 * Optional: when this module is not built (no C compiler at install), the numpy code (and
 * rapidfuzz, for the distances) computes the same values. Each function here is the numpy
 * code's loop written out, and the tests hold the two to the same output
 * (tests/test_dedup_kernels.py, tests/test_dedup_verify.py). Arrays come in through the buffer
 * protocol (numpy arrays, C-contiguous) and every index read from them is checked against the
 * array it reads, so bad input raises ValueError instead of reading out of bounds. Each loop
 * runs without the GIL, on buffers it holds for the call.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BASE 0x9E3779B97F4A7C15ULL
#define LENGTH_WEIGHT 0xBF58476D1CE4E5B9ULL
/* Windows joined a chunk at a time, reads asked for this many items ahead (see join_slice). */
#define CHUNK 4096
#define AHEAD 16

/* A window that may match: the band of keys it looks up, and where its text and place are. */
typedef struct {
    uint64_t first, last;
    int64_t s, n_s, rel;
    Py_ssize_t a, b;
} Probe;

static inline uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDULL;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ULL;
    x ^= x >> 33;
    return x;
}

/* A buffer held for the length of a call, with its length in items of `size` bytes. */
typedef struct {
    Py_buffer view;
    int held;
    Py_ssize_t n;
} Arr;

static int take(PyObject *obj, Arr *a, Py_ssize_t size, int writable, const char *name) {
    a->held = 0;
    a->n = 0;
    if (obj == Py_None) return 0;
    if (PyObject_GetBuffer(obj, &a->view, writable ? (PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) : PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    a->held = 1;
    if (a->view.len % size != 0 || (a->view.itemsize != size && a->view.len > 0)) {
        PyErr_Format(PyExc_ValueError, "%s: items of %zd bytes expected, got %zd", name, size, a->view.itemsize);
        return -1;
    }
    a->n = a->view.len / size;
    return 0;
}

static void drop(Arr *a) {
    if (a->held) PyBuffer_Release(&a->view);
    a->held = 0;
}

/* The words of units[0:count] (of one type, TYPE), ASCII capitals read as their lowercase: each
 * word's hash to out and its first unit's index to at, at most `capacity` of them; *open is left
 * at the start of a word the units or the capacity cut short (-1: none). Returns how many were
 * written. */
#define HASH_UNITS(NAME, TYPE)                                                                      \
    static Py_ssize_t NAME(const TYPE *u, Py_ssize_t count, const uint8_t *table, uint64_t *out,   \
                           int64_t *at, Py_ssize_t capacity, Py_ssize_t *open) {                   \
        Py_ssize_t n = 0, start = -1;                                                              \
        uint64_t h = 0, p = 1;                                                                     \
        for (Py_ssize_t i = 0; i < count; i++) {                                                   \
            uint32_t c = u[i];                                                                     \
            c += c - 'A' < 26u ? 32 : 0; /* str.lower() of an ASCII capital */                     \
            if (table[c]) {                                                                        \
                if (start < 0) {                                                                   \
                    start = i;                                                                     \
                    h = 0;                                                                         \
                    p = 1;                                                                         \
                }                                                                                  \
                h += (uint64_t)c * p;                                                              \
                p *= BASE;                                                                         \
            } else if (start >= 0) {                                                               \
                if (n == capacity) break;                                                          \
                out[n] = mix(h + (uint64_t)(i - start) * LENGTH_WEIGHT);                           \
                at[n++] = start;                                                                   \
                start = -1;                                                                        \
            }                                                                                      \
        }                                                                                          \
        *open = start;                                                                             \
        return n;                                                                                  \
    }

HASH_UNITS(hash_units_1, uint8_t)
HASH_UNITS(hash_units_2, uint16_t)

/* hash_words(units, width, inside, words_out, starts_out) -> number of words
 *
 * units: the code units of a batch (width 1: bytes, 2: UTF-16), each text closed by a unit that
 * is not inside a word, the capitals A to Z read as a to z (the caller lowercases the rest);
 * inside: 65,536 bytes, nonzero for a unit inside a word. A word is a run of units inside (read
 * so); its hash is sum(unit_k * BASE**k) + length * LENGTH_WEIGHT, scrambled by
 * murmur3's finaliser (modulo 2**64), written to words_out, its first unit's index to
 * starts_out. */
static PyObject *hash_words(PyObject *self, PyObject *args) {
    PyObject *o_units, *o_inside, *o_words, *o_starts;
    int width;
    if (!PyArg_ParseTuple(args, "OiOOO", &o_units, &width, &o_inside, &o_words, &o_starts)) return NULL;
    if (width != 1 && width != 2) {
        PyErr_SetString(PyExc_ValueError, "width: 1 or 2");
        return NULL;
    }
    Arr units, inside, words, starts;
    units.held = inside.held = words.held = starts.held = 0;
    PyObject *result = NULL;
    if (take(o_units, &units, width, 0, "units") < 0 || take(o_inside, &inside, 1, 0, "inside") < 0 ||
        take(o_words, &words, 8, 1, "words_out") < 0 || take(o_starts, &starts, 8, 1, "starts_out") < 0)
        goto done;
    if (inside.n < 65536) {
        PyErr_SetString(PyExc_ValueError, "inside: 65,536 entries expected");
        goto done;
    }
    {
        const uint8_t *table = (const uint8_t *)inside.view.buf;
        uint64_t *out = (uint64_t *)words.view.buf;
        int64_t *at = (int64_t *)starts.view.buf;
        Py_ssize_t n = 0, capacity = words.n < starts.n ? words.n : starts.n, start = -1;
        Py_BEGIN_ALLOW_THREADS
        if (width == 1) n = hash_units_1(units.view.buf, units.n, table, out, at, capacity, &start);
        else n = hash_units_2(units.view.buf, units.n, table, out, at, capacity, &start);
        Py_END_ALLOW_THREADS
        if (start >= 0) {
            PyErr_SetString(PyExc_ValueError, "units: a word runs past their end, or words_out has no room for it");
            goto done;
        }
        result = PyLong_FromSsize_t(n);
    }
done:
    drop(&units);
    drop(&inside);
    drop(&words);
    drop(&starts);
    return result;
}

typedef struct {
    uint64_t *data;
    Py_ssize_t n, capacity;
} Out;

static int put(Out *o, uint64_t v) {
    if (o->n == o->capacity) {
        Py_ssize_t grown = o->capacity ? 2 * o->capacity : 4096;
        uint64_t *data = realloc(o->data, (size_t)grown * sizeof(uint64_t));
        if (!data) return -1;
        o->data = data;
        o->capacity = grown;
    }
    o->data[o->n++] = v;
    return 0;
}

/* The first index of keys[lo:hi] (sorted) whose key is >= value. */
static inline Py_ssize_t lower_bound(const uint64_t *keys, Py_ssize_t lo, Py_ssize_t hi, uint64_t value) {
    while (lo < hi) {
        Py_ssize_t mid = lo + ((hi - lo) >> 1);
        int less = keys[mid] < value;
        lo = less ? mid + 1 : lo;
        hi = less ? hi : mid;
    }
    return lo;
}

static inline int64_t read_int(const void *buf, Py_ssize_t size, Py_ssize_t k) {
    switch (size) {
    case 1: return ((const uint8_t *)buf)[k];
    case 2: return ((const uint16_t *)buf)[k];
    case 4: return ((const uint32_t *)buf)[k];
    default: return ((const int64_t *)buf)[k];
    }
}

/* join_slice(hashes, positions, lo, length, bitmap, bitmap_shift, keys, directory, directory_shift,
 *            owner_bits, top, begins, ends, texts, slides, counts, reach, tau, seglen,
 *            max_count, earlier_only, skip, skip_base, limit, total) -> (keys bytes or None, total)
 *
 * segment_index.join for one slice of windows (of `length` words, at global word positions
 * positions[k], or lo + k when positions is None): every window whose hash's bit is set in the
 * bitmap, that `skip` does not pass over (earlier_only), and that a block text slides, is looked
 * up in the band of index keys of its hash within its text's reach; each key within the length
 * and shift bounds (and r < s with earlier_only) gives (r * len(counts) + s) * max_count +
 * start / length. `total` counts the keys of the bands; past `limit` (>= 0) the answer is None. */
static PyObject *join_slice(PyObject *self, PyObject *args) {
    PyObject *o_hashes, *o_positions, *o_bitmap, *o_keys, *o_dir, *o_begins, *o_ends, *o_texts, *o_slides;
    PyObject *o_counts, *o_reach, *o_tau, *o_seglen, *o_skip;
    long long lo, length, bitmap_shift, dir_shift, owner_bits, top, max_count, skip_base, limit, total;
    unsigned long long low;
    int earlier_only;
    if (!PyArg_ParseTuple(args, "OOLLOLOOLLLKOOOOOOOOLpOLLL", &o_hashes, &o_positions, &lo, &length, &o_bitmap,
                          &bitmap_shift, &o_keys, &o_dir, &dir_shift, &owner_bits, &top, &low, &o_begins, &o_ends,
                          &o_texts, &o_slides, &o_counts, &o_reach, &o_tau, &o_seglen, &max_count,
                          &earlier_only, &o_skip, &skip_base, &limit, &total))
        return NULL;
    Arr hashes, positions, bitmap, keys, dir, begins, ends, texts, slides, counts, reach, tau, seglen, skip;
    Arr *all[] = {&hashes, &positions, &bitmap, &keys, &dir, &begins, &ends, &texts, &slides,
                  &counts, &reach, &tau, &seglen, &skip};
    for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); k++) all[k]->held = 0;
    PyObject *result = NULL;
    Out out = {NULL, 0, 0};
    Py_ssize_t skip_size = 1;
    if (o_skip != Py_None) {
        if (PyObject_GetBuffer(o_skip, &skip.view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) goto done;
        skip.held = 1;
        skip_size = skip.view.itemsize;
        if (skip_size != 1 && skip_size != 2 && skip_size != 4 && skip_size != 8) {
            PyErr_SetString(PyExc_ValueError, "skip: items of 1, 2, 4 or 8 bytes expected");
            goto done;
        }
        skip.n = skip.view.len / skip_size;
    }
    if (take(o_hashes, &hashes, 8, 0, "hashes") < 0 || take(o_positions, &positions, 8, 0, "positions") < 0 ||
        take(o_bitmap, &bitmap, 1, 0, "bitmap") < 0 || take(o_keys, &keys, 8, 0, "keys") < 0 ||
        take(o_dir, &dir, 4, 0, "directory") < 0 || take(o_begins, &begins, 8, 0, "begins") < 0 ||
        take(o_ends, &ends, 8, 0, "ends") < 0 || take(o_texts, &texts, 8, 0, "texts") < 0 ||
        take(o_slides, &slides, 1, 0, "slides") < 0 || take(o_counts, &counts, 8, 0, "counts") < 0 ||
        take(o_reach, &reach, 8, 0, "reach") < 0 || take(o_tau, &tau, 8, 0, "tau") < 0 ||
        take(o_seglen, &seglen, 8, 0, "seglen") < 0)
        goto done;
    if (o_positions != Py_None && positions.n != hashes.n) {
        PyErr_SetString(PyExc_ValueError, "positions: one a hash expected");
        goto done;
    }
    if (begins.n != ends.n || begins.n != texts.n || begins.n != slides.n || bitmap.n == 0 ||
        bitmap_shift < 3 || bitmap_shift > 63 || owner_bits < 1 || owner_bits > 62 || length < 1 || max_count < 1) {
        PyErr_SetString(PyExc_ValueError, "join_slice: inconsistent arguments");
        goto done;
    }
    if (bitmap_shift > 60 || (uint64_t)bitmap.n != (1ULL << (61 - bitmap_shift))) {
        PyErr_SetString(PyExc_ValueError, "bitmap: 2**(61 - shift) bytes expected");
        goto done;
    }
    if (o_dir != Py_None && (dir_shift < 2 || dir_shift > 63 || (uint64_t)dir.n != (1ULL << (64 - dir_shift)) + 1)) {
        PyErr_SetString(PyExc_ValueError, "directory: 2**(64 - shift) + 1 entries expected");
        goto done;
    }
    if (top < 1 || top > (1LL << 40) || (low >> owner_bits) < (uint64_t)top) {
        PyErr_SetString(PyExc_ValueError, "join_slice: the key layout does not hold the latest start");
        goto done;
    }
    {
        const uint64_t *h = hashes.view.buf, *key = keys.view.buf;
        const int64_t *pos = o_positions == Py_None ? NULL : positions.view.buf;
        const uint8_t *bits = bitmap.view.buf, *slide = slides.view.buf;
        const int32_t *dirb = o_dir == Py_None ? NULL : dir.view.buf;
        const int64_t *tb = begins.view.buf, *te = ends.view.buf, *tt = texts.view.buf;
        const int64_t *cnt = counts.view.buf, *rch = reach.view.buf, *ta = tau.view.buf, *sl = seglen.view.buf;
        const uint64_t owner_mask = (1ULL << owner_bits) - 1;
        const uint64_t n_texts = (uint64_t)counts.n;
        Py_ssize_t idx = 0;
        int bad = 0, over = 0, nomem = 0;
        Py_ssize_t *hit = malloc(CHUNK * sizeof(Py_ssize_t));
        Probe *pr = malloc(CHUNK * sizeof(Probe));
        if (!hit || !pr) nomem = 1;
        Py_BEGIN_ALLOW_THREADS
        /* A chunk of windows at a time, in steps over the whole chunk: its bitmap bits, then
         * each hit's text and band, its directory bucket, the start of its band, the band's
         * keys. Each step asks for what it reads AHEAD items before it reads it, so the reads
         * that miss the cache overlap instead of waiting one after another. */
        for (Py_ssize_t k0 = 0; k0 < hashes.n && !bad && !over && !nomem; k0 += CHUNK) {
            Py_ssize_t m = hashes.n - k0 < CHUNK ? hashes.n - k0 : CHUNK, nh = 0, np_ = 0, i;
            const uint64_t *hk = h + k0;
            for (i = 0; i < m; i++) {
                if (i + AHEAD < m) __builtin_prefetch(&bits[(hk[i + AHEAD] >> bitmap_shift) >> 3]);
                uint64_t slot = hk[i] >> bitmap_shift;
                hit[nh] = k0 + i;  /* written always, kept when the bit is set: no branch to miss */
                nh += (bits[slot >> 3] >> (slot & 7)) & 1;
            }
            for (i = 0; i < nh && begins.n > 0; i++) {
                Py_ssize_t k = hit[i];
                int64_t at = pos ? pos[k] : lo + k;
                if (earlier_only && skip.held && skip.n > 0) {
                    int64_t q = at - skip_base;
                    if (q < 0) q = 0;
                    if (q > skip.n - 1) q = skip.n - 1;
                    if (read_int(skip.view.buf, skip_size, q) == length) continue;
                }
                /* The last block text starting at or before `at` (the windows come in order:
                 * look at the last one first). */
                if (!(tb[idx] <= at && (idx + 1 == begins.n || tb[idx + 1] > at))) {
                    Py_ssize_t a = 0, b = begins.n;
                    while (a < b) {
                        Py_ssize_t mid = a + ((b - a) >> 1);
                        if (tb[mid] <= at) a = mid + 1;
                        else b = mid;
                    }
                    idx = a > 0 ? a - 1 : 0;
                }
                if (!slide[idx] || at + length > te[idx] || at < tb[idx]) continue;
                int64_t s = tt[idx];
                if (s < 0 || (uint64_t)s >= n_texts) { bad = 1; break; }
                int64_t n_s = cnt[s];
                if (n_s < 0 || n_s >= reach.n) { bad = 1; break; }
                int64_t rel = at - tb[idx], first = rel - rch[n_s], last = rel + rch[n_s];
                if (first < 0) first = 0;
                if (last > top) last = top;
                if (first > last) continue;
                uint64_t part = h[k] & ~(uint64_t)low;
                Probe *p = &pr[np_++];
                p->first = part | ((uint64_t)first << owner_bits);
                p->last = part | ((uint64_t)last << owner_bits) | owner_mask;
                p->s = s;
                p->n_s = n_s;
                p->rel = rel;
            }
            for (i = 0; i < np_ && !bad; i++) {
                Py_ssize_t a = 0, b = keys.n;
                if (dirb) {
                    if (i + AHEAD < np_) __builtin_prefetch(&dirb[pr[i + AHEAD].first >> dir_shift]);
                    uint64_t t = pr[i].first >> dir_shift;
                    a = dirb[t];
                    b = dirb[t + 1];
                    if (a < 0 || b > keys.n || a > b) { bad = 1; break; }
                }
                pr[i].a = a;
                pr[i].b = b;
            }
            for (i = 0; i < np_ && !bad; i++) {
                if (i + AHEAD < np_) {
                    const Probe *q = &pr[i + AHEAD];
                    if (q->a < keys.n) __builtin_prefetch(&key[q->a + ((q->b - q->a) >> 1)]);
                }
                pr[i].a = lower_bound(key, pr[i].a, pr[i].b, pr[i].first);
            }
            for (i = 0; i < np_ && !bad && !over && !nomem; i++) {
                if (i + AHEAD < np_) {
                    Py_ssize_t j = pr[i + AHEAD].a;
                    if (j < keys.n && key[j] <= pr[i + AHEAD].last && (key[j] & owner_mask) < n_texts)
                        __builtin_prefetch(&cnt[key[j] & owner_mask]);
                }
                int64_t s = pr[i].s, n_s = pr[i].n_s, rel = pr[i].rel;
                uint64_t klast = pr[i].last;
                for (Py_ssize_t j = pr[i].a; j < keys.n && key[j] <= klast; j++) {
                    total++;
                    if (limit >= 0 && total > limit) { over = 1; break; }
                    uint64_t r = key[j] & owner_mask;
                    int64_t start = (int64_t)((key[j] >> owner_bits) & (uint64_t)top);
                    if (r >= n_texts) { bad = 1; break; }
                    int64_t n_r = cnt[r], longer = n_r > n_s ? n_r : n_s;
                    if (n_r < 0 || n_r >= seglen.n || longer >= tau.n) { bad = 1; break; }
                    if (sl[n_r] != length || (earlier_only && (int64_t)r >= s)) continue;
                    int64_t moved = rel - start, rest = n_s - n_r - moved;
                    if ((moved < 0 ? -moved : moved) + (rest < 0 ? -rest : rest) > ta[longer]) continue;
                    if (put(&out, ((r * n_texts + (uint64_t)s) * (uint64_t)max_count) + (uint64_t)(start / length)) < 0) {
                        nomem = 1;
                        break;
                    }
                }
            }
        }
        Py_END_ALLOW_THREADS
        free(hit);
        free(pr);
        if (nomem) {
            PyErr_NoMemory();
            goto done;
        }
        if (bad) {
            PyErr_SetString(PyExc_ValueError, "join_slice: an index or a key points outside its arrays");
            goto done;
        }
        if (over) {
            result = Py_BuildValue("(OL)", Py_None, total);
        } else {
            PyObject *bytes = PyBytes_FromStringAndSize((const char *)out.data, out.n * (Py_ssize_t)sizeof(uint64_t));
            if (!bytes) goto done;
            result = Py_BuildValue("(NL)", bytes, total);
        }
    }
done:
    free(out.data);
    for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); k++) drop(all[k]);
    return result;
}

/* mark_keys(keys, bitmap, bitmap_shift, sizes, sizes_shift)
 *
 * segment_index's _Bitmap.add and _Directory.add for keys just merged: each key's bit in the
 * bitmap (its top bits; or None), and one more key in its bucket of `sizes` (int32; or None). */
static PyObject *mark_keys(PyObject *self, PyObject *args) {
    PyObject *o_keys, *o_bitmap, *o_sizes;
    long long bitmap_shift, sizes_shift;
    if (!PyArg_ParseTuple(args, "OOLOL", &o_keys, &o_bitmap, &bitmap_shift, &o_sizes, &sizes_shift)) return NULL;
    Arr keys, bitmap, sizes;
    keys.held = bitmap.held = sizes.held = 0;
    PyObject *result = NULL;
    if (take(o_keys, &keys, 8, 0, "keys") < 0 || take(o_bitmap, &bitmap, 1, 1, "bitmap") < 0 ||
        take(o_sizes, &sizes, 4, 1, "sizes") < 0)
        goto finish;
    if ((o_bitmap != Py_None && (bitmap_shift < 3 || bitmap_shift > 60 || (uint64_t)bitmap.n != (1ULL << (61 - bitmap_shift)))) ||
        (o_sizes != Py_None && (sizes_shift < 1 || sizes_shift > 63 || (uint64_t)sizes.n != (1ULL << (64 - sizes_shift))))) {
        PyErr_SetString(PyExc_ValueError, "mark_keys: the bitmap or sizes do not match their shifts");
        goto finish;
    }
    {
        const uint64_t *k = keys.view.buf;
        uint8_t *bits = o_bitmap == Py_None ? NULL : bitmap.view.buf;
        int32_t *size = o_sizes == Py_None ? NULL : sizes.view.buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < keys.n; i++) {
            if (bits) {
                uint64_t slot = k[i] >> bitmap_shift;
                bits[slot >> 3] |= (uint8_t)(1u << (slot & 7));
            }
            if (size) size[k[i] >> sizes_shift]++;
        }
        Py_END_ALLOW_THREADS
        Py_INCREF(Py_None);
        result = Py_None;
    }
finish:
    drop(&keys);
    drop(&bitmap);
    drop(&sizes);
    return result;
}

/* search_keys(keys, begins, shift, values, right, out)
 *
 * np.searchsorted(keys, values, "right" if right else "left") into out (int64): a binary search
 * of each value's bucket of `begins` (segment_index's _Directory: where the keys whose top bits
 * are each value begin; None: of all the keys). */
static PyObject *search_keys(PyObject *self, PyObject *args) {
    PyObject *o_keys, *o_begins, *o_values, *o_out;
    long long shift;
    int right;
    if (!PyArg_ParseTuple(args, "OOLOpO", &o_keys, &o_begins, &shift, &o_values, &right, &o_out)) return NULL;
    Arr keys, begins, values, out;
    keys.held = begins.held = values.held = out.held = 0;
    PyObject *result = NULL;
    if (take(o_keys, &keys, 8, 0, "keys") < 0 || take(o_begins, &begins, 4, 0, "begins") < 0 ||
        take(o_values, &values, 8, 0, "values") < 0 || take(o_out, &out, 8, 1, "out") < 0)
        goto finish;
    if (out.n < values.n || (o_begins != Py_None && (shift < 2 || shift > 63 || (uint64_t)begins.n != (1ULL << (64 - shift)) + 1))) {
        PyErr_SetString(PyExc_ValueError, "search_keys: inconsistent arguments");
        goto finish;
    }
    {
        const uint64_t *k = keys.view.buf, *v = values.view.buf;
        const int32_t *b = o_begins == Py_None ? NULL : begins.view.buf;
        int64_t *o = out.view.buf;
        int bad = 0;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < values.n; i++) {
            Py_ssize_t lo = 0, hi = keys.n;
            if (b) {
                uint64_t t = v[i] >> shift;
                lo = b[t];
                hi = b[t + 1];
                if (lo < 0 || hi > keys.n || lo > hi) { bad = 1; break; }
            }
            while (lo < hi) {
                Py_ssize_t mid = lo + ((hi - lo) >> 1);
                if (right ? k[mid] <= v[i] : k[mid] < v[i]) lo = mid + 1;
                else hi = mid;
            }
            o[i] = lo;
        }
        Py_END_ALLOW_THREADS
        if (bad) {
            PyErr_SetString(PyExc_ValueError, "search_keys: begins point outside the keys");
            goto finish;
        }
        Py_INCREF(Py_None);
        result = Py_None;
    }
finish:
    drop(&keys);
    drop(&begins);
    drop(&values);
    drop(&out);
    return result;
}

/* crowd_sizes(new, low, keys, bitmap, bitmap_shift, begins, shift, sizes)
 *
 * segment_index.SegmentIndex.add's count: for each of the sorted keys `new`, how many keys share
 * its hash part (key & ~low) among `new` and among the index's sorted `keys` (looked up only
 * where the part's bit is set in `bitmap`, through the directory `begins` of shift `shift`, or
 * all the keys when begins is None), into sizes (int64). */
static PyObject *crowd_sizes(PyObject *self, PyObject *args) {
    PyObject *o_new, *o_keys, *o_bitmap, *o_begins, *o_sizes;
    unsigned long long low;
    long long bitmap_shift, shift;
    if (!PyArg_ParseTuple(args, "OKOOLOLO", &o_new, &low, &o_keys, &o_bitmap, &bitmap_shift, &o_begins, &shift,
                          &o_sizes))
        return NULL;
    Arr fresh, keys, bitmap, begins, sizes;
    Arr *all[] = {&fresh, &keys, &bitmap, &begins, &sizes};
    for (size_t q = 0; q < sizeof(all) / sizeof(all[0]); q++) all[q]->held = 0;
    PyObject *result = NULL;
    if (take(o_new, &fresh, 8, 0, "new") < 0 || take(o_keys, &keys, 8, 0, "keys") < 0 ||
        take(o_bitmap, &bitmap, 1, 0, "bitmap") < 0 || take(o_begins, &begins, 4, 0, "begins") < 0 ||
        take(o_sizes, &sizes, 8, 1, "sizes") < 0)
        goto finish;
    if (sizes.n < fresh.n || bitmap_shift < 3 || bitmap_shift > 60 || (uint64_t)bitmap.n != (1ULL << (61 - bitmap_shift)) ||
        (o_begins != Py_None && (shift < 2 || shift > 63 || (uint64_t)begins.n != (1ULL << (64 - shift)) + 1))) {
        PyErr_SetString(PyExc_ValueError, "crowd_sizes: inconsistent arguments");
        goto finish;
    }
    {
        const uint64_t *f = fresh.view.buf, *k = keys.view.buf, hash = ~(uint64_t)low;
        const uint8_t *bits = bitmap.view.buf;
        const int32_t *b = o_begins == Py_None ? NULL : begins.view.buf;
        int64_t *out = sizes.view.buf;
        int bad = 0;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < fresh.n && !bad;) {
            uint64_t part = f[i] & hash;
            Py_ssize_t j = i + 1;
            while (j < fresh.n && (f[j] & hash) == part) j++;
            int64_t count = j - i;
            uint64_t slot = part >> bitmap_shift;
            if (keys.n > 0 && ((bits[slot >> 3] >> (slot & 7)) & 1)) {
                /* The keys from the part's least key to its greatest: each end searched in its
                 * own bucket (a part may span buckets when the directory has more bits). */
                uint64_t past = part | (uint64_t)low;
                Py_ssize_t lo = 0, hi = keys.n, lo2 = 0, hi2 = keys.n;
                if (b) {
                    lo = b[part >> shift];
                    hi = b[(part >> shift) + 1];
                    lo2 = b[past >> shift];
                    hi2 = b[(past >> shift) + 1];
                    if (lo < 0 || hi > keys.n || lo > hi || lo2 < 0 || hi2 > keys.n || lo2 > hi2) { bad = 1; break; }
                }
                Py_ssize_t first = lower_bound(k, lo, hi, part);
                while (lo2 < hi2) {  /* the first key past the part's greatest */
                    Py_ssize_t mid = lo2 + ((hi2 - lo2) >> 1);
                    if (k[mid] <= past) lo2 = mid + 1;
                    else hi2 = mid;
                }
                count += lo2 - first;
            }
            for (Py_ssize_t q = i; q < j; q++) out[q] = count;
            i = j;
        }
        Py_END_ALLOW_THREADS
        if (bad) {
            PyErr_SetString(PyExc_ValueError, "crowd_sizes: begins point outside the keys");
            goto finish;
        }
        Py_INCREF(Py_None);
        result = Py_None;
    }
finish:
    for (size_t q = 0; q < sizeof(all) / sizeof(all[0]); q++) drop(all[q]);
    return result;
}

/* merge_keys(buffer, filled, new)
 *
 * Merge the sorted keys `new` into buffer[0:filled] (sorted) so that buffer[0:filled + len(new)]
 * holds both, sorted (an equal key of the buffer's first): from the back, in place, one pass. */
static PyObject *merge_keys(PyObject *self, PyObject *args) {
    PyObject *o_buffer, *o_new;
    Py_ssize_t filled;
    if (!PyArg_ParseTuple(args, "OnO", &o_buffer, &filled, &o_new)) return NULL;
    Arr buffer, fresh;
    buffer.held = fresh.held = 0;
    PyObject *result = NULL;
    if (take(o_buffer, &buffer, 8, 1, "buffer") < 0 || take(o_new, &fresh, 8, 0, "new") < 0) goto finish;
    if (filled < 0 || filled + fresh.n > buffer.n ||
        ((const char *)fresh.view.buf < (const char *)buffer.view.buf + buffer.view.len &&
         (const char *)buffer.view.buf < (const char *)fresh.view.buf + fresh.view.len && fresh.n > 0)) {
        PyErr_SetString(PyExc_ValueError, "merge_keys: no room in the buffer, or new keys inside it");
        goto finish;
    }
    {
        uint64_t *out = buffer.view.buf;
        const uint64_t *f = fresh.view.buf;
        Py_BEGIN_ALLOW_THREADS
        Py_ssize_t a = filled - 1, c = fresh.n - 1, w = filled + fresh.n - 1;
        while (c >= 0) {
            if (a >= 0 && out[a] > f[c]) out[w--] = out[a--];
            else out[w--] = f[c--];
        }
        Py_END_ALLOW_THREADS
        Py_INCREF(Py_None);
        result = Py_None;
    }
finish:
    drop(&buffer);
    drop(&fresh);
    return result;
}

/* place_words(table, words, numbers)
 *
 * verify._Vocabulary._place: put distinct words, none in the table yet, with their numbers plus
 * one (never 0) in free slots (the table must have room for them all). */
static PyObject *place_words(PyObject *self, PyObject *args) {
    PyObject *o_table, *o_words, *o_numbers;
    if (!PyArg_ParseTuple(args, "OOO", &o_table, &o_words, &o_numbers)) return NULL;
    Arr table, words, numbers;
    table.held = words.held = numbers.held = 0;
    PyObject *result = NULL;
    if (take(o_table, &table, 8, 1, "table") < 0 || take(o_words, &words, 8, 0, "words") < 0 ||
        take(o_numbers, &numbers, 8, 0, "numbers") < 0)
        goto finish;
    {
        Py_ssize_t slots = table.n / 2, used = 0;
        int bits = 0;
        while (((Py_ssize_t)1 << bits) < slots) bits++;
        uint64_t *t = table.view.buf;
        const uint64_t *w = words.view.buf, *num = numbers.view.buf;
        for (Py_ssize_t i = 0; i < slots; i++) used += t[2 * i + 1] != 0;
        if (slots < 2 || ((Py_ssize_t)1 << bits) != slots || numbers.n != words.n || used + words.n >= slots) {
            PyErr_SetString(PyExc_ValueError, "place_words: inconsistent arguments, or no room");
            goto finish;
        }
        for (Py_ssize_t i = 0; i < words.n; i++) {
            if (num[i] == 0) {
                PyErr_SetString(PyExc_ValueError, "place_words: numbers plus one are never 0");
                goto finish;
            }
        }
        const uint64_t mask = (uint64_t)slots - 1;
        const int shift = 64 - bits;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < words.n; i++) {
            uint64_t slot = w[i] >> shift;
            while (t[2 * slot + 1] != 0) slot = (slot + 1) & mask;
            t[2 * slot] = w[i];
            t[2 * slot + 1] = num[i];
        }
        Py_END_ALLOW_THREADS
        Py_INCREF(Py_None);
        result = Py_None;
    }
finish:
    drop(&table);
    drop(&words);
    drop(&numbers);
    return result;
}

/* window_hashes(words, lo, hi, length, weight, out)
 *
 * word_runs.WordHashes.window_hashes for a short length: for every global position q in
 * [lo, hi), the hash sum(words[q + k] * BASE**k, k < length) + weight of the `length` words
 * from q (weight: length * the length weight, modulo 2**64), written to out[q - lo]. */
static PyObject *window_hashes(PyObject *self, PyObject *args) {
    PyObject *o_words, *o_out;
    long long lo, hi, length;
    unsigned long long weight;
    if (!PyArg_ParseTuple(args, "OLLLKO", &o_words, &lo, &hi, &length, &weight, &o_out)) return NULL;
    Arr words, out;
    words.held = out.held = 0;
    PyObject *result = NULL;
    if (take(o_words, &words, 8, 0, "words") < 0 || take(o_out, &out, 8, 1, "out") < 0) goto finish;
    if (length < 1 || length > 64 || lo < 0 || hi < lo || hi + length - 1 > words.n || out.n < hi - lo) {
        PyErr_SetString(PyExc_ValueError, "window_hashes: the windows do not lie in the words");
        goto finish;
    }
    {
        const uint64_t *w = words.view.buf;
        uint64_t *o = out.view.buf, pw[64];
        pw[0] = 1;
        for (int k = 1; k < length; k++) pw[k] = pw[k - 1] * BASE;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t q = lo; q < hi; q++) {
            uint64_t h = weight;
            for (int k = 0; k < length; k++) h += w[q + k] * pw[k];
            o[q - lo] = h;
        }
        Py_END_ALLOW_THREADS
        Py_INCREF(Py_None);
        result = Py_None;
    }
finish:
    drop(&words);
    drop(&out);
    return result;
}

/* code_texts(table, size, most, words, begins, lengths, out, done) -> (done, size)
 *
 * verify._Vocabulary.number's table, in C, over the words of texts: `table` holds 2 * 2**bits
 * uint64 (a word's hash and its number plus one side by side; 0: a free slot), a word's first
 * slot is its hash's top bits, probing goes on to the next. Text t's lengths[t] words from
 * words[begins[t]] on get their numbers (a new word the next, size, and size grows), written one
 * after another to out as code points (numbers from U+D800 on moved past the surrogate block),
 * from text `done` on, until all are done or size reaches `most` (then the caller grows the
 * table and calls again from the text it was given back). */
static PyObject *code_texts(PyObject *self, PyObject *args) {
    PyObject *o_table, *o_words, *o_begins, *o_lengths, *o_out;
    long long size, most, done;
    if (!PyArg_ParseTuple(args, "OLLOOOOL", &o_table, &size, &most, &o_words, &o_begins, &o_lengths, &o_out, &done))
        return NULL;
    Arr table, words, begins, lengths, out;
    table.held = words.held = begins.held = lengths.held = out.held = 0;
    PyObject *result = NULL;
    if (take(o_table, &table, 8, 1, "table") < 0 || take(o_words, &words, 8, 0, "words") < 0 ||
        take(o_begins, &begins, 8, 0, "begins") < 0 || take(o_lengths, &lengths, 8, 0, "lengths") < 0 ||
        take(o_out, &out, 4, 1, "out") < 0)
        goto finish;
    {
        Py_ssize_t slots = table.n / 2, total = 0;
        int bits = 0;
        while (((Py_ssize_t)1 << bits) < slots) bits++;
        const int64_t *b = begins.view.buf, *len = lengths.view.buf;
        for (Py_ssize_t t = 0; t < begins.n && t < lengths.n; t++) {
            if (b[t] < 0 || len[t] < 0 || b[t] + len[t] > words.n) { total = -1; break; }
            total += len[t];
        }
        if (slots < 2 || ((Py_ssize_t)1 << bits) != slots || begins.n != lengths.n || total < 0 || out.n < total ||
            done < 0 || done > begins.n || size < 0 || most >= slots || most > 0xFFFFFFFFLL) {
            PyErr_SetString(PyExc_ValueError, "code_texts: inconsistent arguments");
            goto finish;
        }
        uint64_t *tab = table.view.buf;
        const uint64_t *w = words.view.buf;
        uint32_t *o = out.view.buf;
        const uint64_t mask = (uint64_t)slots - 1;
        const int shift = 64 - bits;
        Py_ssize_t at = 0, t;
        for (t = 0; t < done; t++) at += len[t];
        Py_BEGIN_ALLOW_THREADS
        for (t = done; t < begins.n; t++) {
            Py_ssize_t here = at;
            for (Py_ssize_t i = b[t]; i < b[t] + len[t]; i++) {
                uint64_t word = w[i], slot = word >> shift, number;
                for (;;) {
                    uint64_t *entry = tab + 2 * slot;
                    if (entry[1] == 0) {
                        if (size >= most) goto full;
                        entry[0] = word;
                        entry[1] = (uint64_t)++size;
                        number = (uint64_t)size - 1;
                        break;
                    }
                    if (entry[0] == word) {
                        number = entry[1] - 1;
                        break;
                    }
                    slot = (slot + 1) & mask;
                }
                o[here++] = (uint32_t)(number >= 0xD800 ? number + 2048 : number);
            }
            at = here;
        }
    full:
        Py_END_ALLOW_THREADS
        result = Py_BuildValue("(nL)", t, size);
    }
finish:
    drop(&table);
    drop(&words);
    drop(&begins);
    drop(&lengths);
    drop(&out);
    return result;
}

/* sort_keys(keys)
 *
 * Sort 64-bit keys (uint64, or int64 none of them negative) in place: a least-significant-digit
 * radix sort, 11 bits a pass (a pass whose digit every key shares is skipped). */
static PyObject *sort_keys(PyObject *self, PyObject *args) {
    PyObject *o_keys;
    if (!PyArg_ParseTuple(args, "O", &o_keys)) return NULL;
    Arr keys;
    keys.held = 0;
    PyObject *result = NULL;
    if (take(o_keys, &keys, 8, 1, "keys") < 0) goto finish;
    {
        uint64_t *a = keys.view.buf, *b = malloc((size_t)(keys.n ? keys.n : 1) * sizeof(uint64_t));
        size_t *count = calloc(6 * 2048, sizeof(size_t));
        if (!b || !count) {
            free(b);
            free(count);
            PyErr_NoMemory();
            goto finish;
        }
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < keys.n; i++)
            for (int d = 0; d < 6; d++) count[d * 2048 + ((a[i] >> (11 * d)) & 2047)]++;
        uint64_t *from = a, *to = b;
        for (int d = 0; d < 6; d++) {
            size_t *c = count + d * 2048, sum = 0;
            int shared = 0;
            for (int v = 0; v < 2048; v++) shared |= c[v] == (size_t)keys.n;
            if (shared) continue;
            for (int v = 0; v < 2048; v++) {
                size_t here = c[v];
                c[v] = sum;
                sum += here;
            }
            for (Py_ssize_t i = 0; i < keys.n; i++) to[c[(from[i] >> (11 * d)) & 2047]++] = from[i];
            uint64_t *swap = from;
            from = to;
            to = swap;
        }
        if (from != a) memcpy(a, from, (size_t)keys.n * sizeof(uint64_t));
        Py_END_ALLOW_THREADS
        free(b);
        free(count);
        Py_INCREF(Py_None);
        result = Py_None;
    }
finish:
    drop(&keys);
    return result;
}

/* The Levenshtein distance of word sequences a[0:n] and b[0:m] if it is at most k, else k + 1;
 * -1 when deciding would take more than `budget` steps (the caller measures such a pair another
 * way). Ukkonen's diagonal transitions (Landau & Vishkin 1989): for e = 0, 1, ... the furthest
 * row each diagonal reaches with e edits, slid along equal words; work about (n + m) + d * d
 * for a distance d on text that does not repeat itself, more on text that does (the budget).
 * `row` and `next` hold 2k + 3 entries each. */
static int64_t bounded_distance(const uint64_t *a, int64_t n, const uint64_t *b, int64_t m, int64_t k,
                                int64_t budget, int64_t *row, int64_t *next) {
    while (n > 0 && m > 0 && a[0] == b[0]) a++, b++, n--, m--;  /* the shared ends cost nothing */
    while (n > 0 && m > 0 && a[n - 1] == b[m - 1]) n--, m--;
    int64_t target = m - n, work = 0;
    if ((target < 0 ? -target : target) > k) return k + 1;
    if (n == 0 || m == 0) return n > m ? n : m;
    const int64_t none = INT64_MIN / 2, off = k + 1;
    for (int64_t d = 0; d < 2 * k + 3; d++) row[d] = none;
    int64_t i = 0;
    while (i < n && i < m && a[i] == b[i]) i++;
    row[off] = i;
    if (target == 0 && i >= n) return 0;
    for (int64_t e = 1; e <= k; e++) {
        /* A diagonal d is still off the end's by |target - d| edits: past the bound, skip it. */
        int64_t lo = -e > -n ? -e : -n, hi = e < m ? e : m;
        if (lo < target - (k - e)) lo = target - (k - e);
        if (hi > target + (k - e)) hi = target + (k - e);
        for (int64_t d = lo; d <= hi; d++) {
            int64_t x = row[off + d] + 1;                           /* a substitution */
            if (d + 1 <= k && row[off + d + 1] + 1 > x) x = row[off + d + 1] + 1;  /* a[i] left out */
            if (d - 1 >= -k && row[off + d - 1] > x) x = row[off + d - 1];        /* b[j] put in */
            if (x > n) x = n;
            if (x + d > m) x = m - d;
            if (x < 0 || x + d < 0) { next[off + d] = none; continue; }
            int64_t start = x;
            while (x < n && x + d < m && a[x] == b[x + d]) x++;
            work += 1 + (x - start);
            next[off + d] = x;
        }
        for (int64_t d = lo; d <= hi; d++) row[off + d] = next[off + d];
        /* The band moves a diagonal a step at most: what was just left behind reads as none. */
        if (lo - 1 >= -k - 1) row[off + lo - 1] = none;
        if (hi + 1 <= k + 1) row[off + hi + 1] = none;
        if (target >= lo && target <= hi && row[off + target] >= n) return e;
        if (work > budget) return -1;
    }
    return k + 1;
}

/* The bound a pair of n and m words is measured to: no distance is more than the longer. */
static inline int64_t usable_bound(int64_t k, int64_t n, int64_t m) {
    int64_t longer = n > m ? n : m;
    return k < longer ? k : longer;
}

/* bounded_distance with the bound k as asked (k + 1 past it, whatever the usable bound) and a
 * budget of `factor` times the steps of a banded bit-parallel measure: about longer * (2k + 1)
 * / 64 word steps, each several instructions, plus a floor. `row` and `next` hold
 * 2 * usable_bound(k, n, m) + 3 entries each. */
static int64_t distance_up_to(const uint64_t *a, int64_t n, const uint64_t *b, int64_t m, int64_t k,
                              int64_t factor, int64_t *row, int64_t *next) {
    int64_t longer = n > m ? n : m, kk = usable_bound(k, n, m);
    int64_t budget = factor * (longer * ((2 * kk + 64) / 64) + (n + m) / 4 + 256);
    int64_t d = bounded_distance(a, n, b, m, kk, budget, row, next);
    return d > kk ? k + 1 : d;
}

/* bounded_distances(words, first, second, lengths_a, lengths_b, bounds, out, lo, hi, factor)
 *
 * For pairs lo to hi - 1: the word sequences words[first[p]:first[p] + lengths_a[p]] and
 * words[second[p]:...+ lengths_b[p]]; out[p] = their Levenshtein distance when it is at most
 * bounds[p], bounds[p] + 1 when it is more, -1 when that would take more than `factor` times
 * the steps of a banded bit-parallel measure (text that repeats itself: the caller measures it
 * so; a factor of 0 hands back every pair that is not settled by its ends alone). */
static PyObject *bounded_distances(PyObject *self, PyObject *args) {
    PyObject *o_words, *o_first, *o_second, *o_la, *o_lb, *o_bounds, *o_out;
    Py_ssize_t lo, hi;
    long long factor;
    if (!PyArg_ParseTuple(args, "OOOOOOOnnL", &o_words, &o_first, &o_second, &o_la, &o_lb, &o_bounds, &o_out, &lo,
                          &hi, &factor))
        return NULL;
    Arr words, first, second, la, lb, bounds, out;
    Arr *all[] = {&words, &first, &second, &la, &lb, &bounds, &out};
    for (size_t q = 0; q < sizeof(all) / sizeof(all[0]); q++) all[q]->held = 0;
    PyObject *result = NULL;
    int64_t *row = NULL;
    if (take(o_words, &words, 8, 0, "words") < 0 || take(o_first, &first, 8, 0, "first") < 0 ||
        take(o_second, &second, 8, 0, "second") < 0 || take(o_la, &la, 8, 0, "lengths_a") < 0 ||
        take(o_lb, &lb, 8, 0, "lengths_b") < 0 || take(o_bounds, &bounds, 8, 0, "bounds") < 0 ||
        take(o_out, &out, 8, 1, "out") < 0)
        goto finish;
    if (first.n != second.n || first.n != la.n || first.n != lb.n || first.n != bounds.n || first.n != out.n ||
        lo < 0 || hi < lo || hi > first.n || factor < 0 || factor > 1024) {
        PyErr_SetString(PyExc_ValueError, "bounded_distances: inconsistent arguments");
        goto finish;
    }
    {
        const uint64_t *w = words.view.buf;
        const int64_t *fa = first.view.buf, *fb = second.view.buf, *na = la.view.buf, *nb = lb.view.buf;
        const int64_t *kb = bounds.view.buf;
        int64_t *o = out.view.buf, most = 0;
        for (Py_ssize_t p = lo; p < hi; p++) {
            if (fa[p] < 0 || fb[p] < 0 || na[p] < 0 || nb[p] < 0 || kb[p] < 0 || fa[p] + na[p] > words.n ||
                fb[p] + nb[p] > words.n) {
                PyErr_SetString(PyExc_ValueError, "bounded_distances: a pair points outside the words");
                goto finish;
            }
            int64_t k = usable_bound(kb[p], na[p], nb[p]);
            if (k > most) most = k;
        }
        row = malloc((size_t)(2 * (2 * most + 3)) * sizeof(int64_t));
        if (!row) {
            PyErr_NoMemory();
            goto finish;
        }
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t p = lo; p < hi; p++)
            o[p] = distance_up_to(w + fa[p], na[p], w + fb[p], nb[p], kb[p], factor, row, row + 2 * most + 3);
        Py_END_ALLOW_THREADS
        result = Py_None;
        Py_INCREF(result);
    }
finish:
    free(row);
    for (size_t q = 0; q < sizeof(all) / sizeof(all[0]); q++) drop(all[q]);
    return result;
}

/* bounded_distance(words, first, length_a, second, length_b, bound, factor) -> int
 *
 * bounded_distances for one pair, its numbers passed as integers (a call costs a microsecond,
 * where seven arrays of one cost ten). */
static PyObject *bounded_distance_one(PyObject *self, PyObject *args) {
    PyObject *o_words;
    long long fa, na, fb, nb, k, factor;
    if (!PyArg_ParseTuple(args, "OLLLLLL", &o_words, &fa, &na, &fb, &nb, &k, &factor)) return NULL;
    Arr words;
    if (take(o_words, &words, 8, 0, "words") < 0) {
        drop(&words);
        return NULL;
    }
    if (fa < 0 || fb < 0 || na < 0 || nb < 0 || k < 0 || fa + na > words.n || fb + nb > words.n || factor < 0 ||
        factor > 1024) {
        drop(&words);
        PyErr_SetString(PyExc_ValueError, "bounded_distance: the pair points outside the words");
        return NULL;
    }
    int64_t kk = usable_bound(k, na, nb);
    int64_t small[2 * (2 * 64 + 3)], *row = kk <= 64 ? small : malloc((size_t)(2 * (2 * kk + 3)) * sizeof(int64_t));
    if (!row) {
        drop(&words);
        return PyErr_NoMemory();
    }
    const uint64_t *w = words.view.buf;
    int64_t d = distance_up_to(w + fa, na, w + fb, nb, k, factor, row, row + 2 * kk + 3);
    if (row != small) free(row);
    drop(&words);
    return PyLong_FromLongLong(d);
}

static PyMethodDef methods[] = {
    {"hash_words", hash_words, METH_VARARGS, "Hash every word of a batch's code units (see the module source)."},
    {"mark_keys", mark_keys, METH_VARARGS, "Mark keys in a bitmap and count them by bucket (see the module source)."},
    {"search_keys", search_keys, METH_VARARGS, "np.searchsorted through a directory of buckets (see the module source)."},
    {"crowd_sizes", crowd_sizes, METH_VARARGS, "How many keys share each new key's hash, new and indexed (see the module source)."},
    {"merge_keys", merge_keys, METH_VARARGS, "Merge sorted keys into a sorted buffer, in place (see the module source)."},
    {"place_words", place_words, METH_VARARGS, "Put numbered words in an open-addressing table (see the module source)."},
    {"window_hashes", window_hashes, METH_VARARGS, "Hash every run of a few words in a range (see the module source)."},
    {"code_texts", code_texts, METH_VARARGS, "Write texts' words as numbered code points (see the module source)."},
    {"sort_keys", sort_keys, METH_VARARGS, "Sort 64-bit keys in place, a radix sort (see the module source)."},
    {"join_slice", join_slice, METH_VARARGS, "Join one slice of windows with an index of segments (see the module source)."},
    {"bounded_distance", bounded_distance_one, METH_VARARGS, "bounded_distances for one pair (see the module source)."},
    {"bounded_distances", bounded_distances, METH_VARARGS, "Levenshtein distances of word sequences up to bounds (see the module source)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernels",
                                    "The default measure's two inner loops in C (optional: numpy computes the same).",
                                    -1, methods};

PyMODINIT_FUNC PyInit__kernels(void) { return PyModule_Create(&module); }
