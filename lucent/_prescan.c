/* lucent._prescan: one pass over a JSON text before msgspec parses it.
 *
 * prescan(text: bytes, limit: int, utf8: bool) -> int
 *
 *   -1  the arrays and objects of the text nest at most `limit` levels ([] is 1) and, when
 *       `utf8` is true, the text is well-formed UTF-8 (RFC 3629; the Unicode Standard, table
 *       3-7: no overlong form, no surrogate, nothing past U+10FFFF);
 *   -2  they nest deeper than `limit` (nothing after that point is read);
 *   >=0 the byte offset of the first ill-formed UTF-8 sequence (its first byte, as Python's
 *       UnicodeDecodeError.start), when it comes before the point where the text is too deep
 *       (or in the same 64 bytes); after -2 a caller that wants the UTF-8 verdict reads again.
 *
 * The depth is lucent._validation.nests_deeper's: a backslash escapes the byte after it
 * (in a string or not), brackets between two unescaped quotes are text, an unterminated string
 * hides the brackets after it, and a closing bracket lowers the depth even below zero (text
 * that is not JSON gets some answer; the parse then refuses it). lucent._decode falls back to
 * nests_deeper and bytes.decode('utf-8') when this module is not built.
 *
 * Two implementations give the same answers (tests/test_prescan.py holds them to a Python
 * reference): with SSE2, 64 bytes at a time as bit masks (quotes, backslashes, brackets, bytes
 * >= 0x80), escapes found by carries and strings by a prefix XOR (simdjson's stage 1, Langdale
 * and Lemire, "Parsing gigabytes of JSON per second", 2019); elsewhere, and as
 * prescan_scalar(), byte by byte with eight-byte skips over the bytes that do not matter.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define HAVE_SSE2 1
#endif

/* --- UTF-8 ------------------------------------------------------------------------------ */

/* The length of the well-formed UTF-8 sequence at p (p[0] >= 0x80), or 0. */
static inline Py_ssize_t
sequence(const unsigned char *p, const unsigned char *end)
{
    unsigned char c = p[0];
    Py_ssize_t left = end - p;
    if (c >= 0xC2 && c <= 0xDF) {
        return left >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
    }
    if (c >= 0xE0 && c <= 0xEF) {
        if (left < 3 || (p[2] & 0xC0) != 0x80) {
            return 0;
        }
        unsigned char lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
        return p[1] >= lo && p[1] <= hi ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (left < 4 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80) {
            return 0;
        }
        unsigned char lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
        return p[1] >= lo && p[1] <= hi ? 4 : 0;
    }
    return 0;
}

/* --- byte by byte ----------------------------------------------------------------------- */

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL
#define HAS_ZERO(v) (((v) - ONES) & ~(v) & HIGHS) /* exact up to the first zero byte */
#define HAS_BYTE(v, b) HAS_ZERO((v) ^ (ONES * (uint64_t)(b)))

enum { PLAIN = 0, QUOTE, BACKSLASH, OPEN, CLOSE, HIGH };

static unsigned char outside[2][256], inside[2][256];

static void
fill_tables(void)
{
    for (int u = 0; u < 2; u++) {
        outside[u]['"'] = inside[u]['"'] = QUOTE;
        outside[u]['\\'] = inside[u]['\\'] = BACKSLASH;
        outside[u]['['] = outside[u]['{'] = OPEN;
        outside[u][']'] = outside[u]['}'] = CLOSE;
        if (u) {
            for (int c = 0x80; c < 0x100; c++) {
                outside[u][c] = inside[u][c] = HIGH;
            }
        }
    }
}

static inline uint64_t
load8(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* The bytes of v (little-endian) that a scan must stop at, as high bits, exact up to the first:
 * outside a string a quote, a backslash, a bracket ([ ] and { } differ by 0x20) or (utf8) a
 * byte >= 0x80; inside one a quote, a backslash or (utf8) a byte >= 0x80. */
static inline uint64_t
outside_stops(uint64_t v, int utf8)
{
    uint64_t lower = v | (ONES * 0x20);
    return HAS_BYTE(v, '"') | HAS_BYTE(v, '\\') | HAS_BYTE(lower, '{') | HAS_BYTE(lower, '}') | (utf8 ? v & HIGHS : 0);
}

static inline uint64_t
inside_stops(uint64_t v, int utf8)
{
    return HAS_BYTE(v, '"') | HAS_BYTE(v, '\\') | (utf8 ? v & HIGHS : 0);
}

#if defined(__GNUC__) || defined(__clang__)
#define TRAILING_ZEROS(mask) __builtin_ctzll(mask)
#define POPCOUNT(mask) __builtin_popcountll(mask)
#else
static inline int
trailing_zeros(uint64_t mask)
{
    int i = 0;
    while (!(mask & 1)) {
        mask >>= 1;
        i++;
    }
    return i;
}
static inline int
popcount(uint64_t mask)
{
    int i = 0;
    for (; mask; mask &= mask - 1) {
        i++;
    }
    return i;
}
#define TRAILING_ZEROS(mask) trailing_zeros(mask)
#define POPCOUNT(mask) popcount(mask)
#endif

/* Move p to the first byte at or after it that `stops` (or `table`) flags, or to end. */
#define SKIP(p, end, stops, table, utf8)                        \
    for (;;) {                                                  \
        if ((end) - (p) >= 8) {                                 \
            uint64_t mask = stops(load8(p), utf8);              \
            if (mask) {                                         \
                (p) += TRAILING_ZEROS(mask) >> 3;               \
                break;                                          \
            }                                                   \
            (p) += 8;                                           \
        }                                                       \
        else {                                                  \
            while ((p) < (end) && (table)[*(p)] == PLAIN) {     \
                (p)++;                                          \
            }                                                   \
            break;                                              \
        }                                                       \
    }

/* After a backslash at p - 1: the byte it escapes is passed over, unless it starts a UTF-8
 * sequence that must be checked (it is no quote either way). */
#define PAST_ESCAPE(p, end, utf8) ((p) < (end) && (*(p) < 0x80 || !(utf8)) ? 1 : 0)

static Py_ssize_t
scan_bytes(const unsigned char *text, Py_ssize_t n, long long limit, int utf8)
{
    const unsigned char *p = text, *end = text + n;
    const unsigned char *out = outside[utf8], *in = inside[utf8];
    long long depth = 0;
    Py_ssize_t length;
    for (;;) {
        /* outside a string */
        SKIP(p, end, outside_stops, out, utf8);
        if (p == end) {
            return -1;
        }
        switch (out[*p++]) {
        case OPEN:
            if (++depth > limit) {
                return -2;
            }
            continue;
        case CLOSE:
            depth--;
            continue;
        case BACKSLASH:
            p += PAST_ESCAPE(p, end, utf8);
            continue;
        case HIGH:
            length = sequence(p - 1, end);
            if (!length) {
                return p - 1 - text;
            }
            p += length - 1;
            continue;
        default: /* QUOTE */
            break;
        }
        /* inside a string, to its closing quote */
        for (;;) {
            SKIP(p, end, inside_stops, in, utf8);
            if (p == end) {
                return -1;
            }
            unsigned char kind = in[*p++];
            if (kind == QUOTE) {
                break;
            }
            if (kind == BACKSLASH) {
                p += PAST_ESCAPE(p, end, utf8);
                continue;
            }
            length = sequence(p - 1, end);
            if (!length) {
                return p - 1 - text;
            }
            p += length - 1;
        }
    }
}

/* --- 64 bytes at a time ----------------------------------------------------------------- */

#ifdef HAVE_SSE2
#define ODD_BITS 0xAAAAAAAAAAAAAAAAULL

typedef struct {
    uint64_t quote, backslash, open, close, high;
} block_masks;

static inline void
masks_of(const unsigned char *p, block_masks *m)
{
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    const __m128i open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}'), lower = _mm_set1_epi8(0x20);
    m->quote = m->backslash = m->open = m->close = m->high = 0;
    for (int i = 0; i < 4; i++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + 16 * i));
        __m128i l = _mm_or_si128(v, lower); /* [ -> {, ] -> }: nothing else becomes either */
        int shift = 16 * i;
        m->quote |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)) << shift;
        m->backslash |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash)) << shift;
        m->open |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(l, open)) << shift;
        m->close |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(l, close)) << shift;
        m->high |= (uint64_t)(unsigned)_mm_movemask_epi8(v) << shift;
    }
}

static inline uint64_t
prefix_xor(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

static Py_ssize_t
scan_blocks(const unsigned char *text, Py_ssize_t n, long long limit, int utf8)
{
    const unsigned char *end = text + n, *checked = text; /* UTF-8 is checked up to `checked` */
    uint64_t escaped_next = 0, in_string = 0;             /* carried from block to block */
    long long depth = 0;
    unsigned char tail[64];
    for (Py_ssize_t offset = 0; offset < n; offset += 64) {
        const unsigned char *block = text + offset;
        block_masks m;
        if (n - offset >= 64) {
            masks_of(block, &m);
        }
        else {
            memset(tail, ' ', sizeof tail);
            memcpy(tail, block, (size_t)(n - offset));
            masks_of(tail, &m);
        }
        /* the bytes a backslash escapes: the odd ones after each run of backslashes */
        uint64_t escaped;
        if (!m.backslash) {
            escaped = escaped_next;
            escaped_next = 0;
        }
        else {
            uint64_t starts = m.backslash & ~escaped_next;
            uint64_t codes = (((starts << 1) | ODD_BITS) - starts) ^ ODD_BITS;
            escaped = codes ^ (m.backslash | escaped_next);
            escaped_next = (codes & m.backslash) >> 63;
        }
        uint64_t strings = prefix_xor(m.quote & ~escaped) ^ in_string; /* opening quote to before the closing */
        in_string = (uint64_t)((int64_t)strings >> 63);
        if (utf8 && m.high) { /* each byte >= 0x80 that no sequence checked yet starts one */
            uint64_t high = m.high;
            if (checked > block) {
                high = checked - block >= 64 ? 0 : high & ~((1ULL << (checked - block)) - 1);
            }
            while (high) {
                int at = TRAILING_ZEROS(high);
                Py_ssize_t length = sequence(block + at, end);
                if (!length) {
                    return offset + at;
                }
                if (at + length >= 64) {
                    checked = block + at + length;
                    break;
                }
                high &= ~((1ULL << (at + length)) - 1);
            }
        }
        uint64_t opens = m.open & ~(strings | escaped), closes = m.close & ~(strings | escaped);
        int rise = POPCOUNT(opens);
        if (depth + rise <= limit) {
            depth += rise - POPCOUNT(closes);
            continue;
        }
        for (uint64_t both = opens | closes; both; both &= both - 1) { /* in order, to the deepest */
            if (both & opens & (~both + 1)) {
                if (++depth > limit) {
                    return -2;
                }
            }
            else {
                depth--;
            }
        }
    }
    return -1;
}
#endif

/* --- the module ------------------------------------------------------------------------- */

typedef Py_ssize_t (*scanner)(const unsigned char *, Py_ssize_t, long long, int);

#ifdef HAVE_SSE2
#define BEST scan_blocks
#else
#define BEST scan_bytes
#endif

static PyObject *
call(PyObject *const *args, Py_ssize_t nargs, scanner scan)
{
    if (nargs != 3 || !PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "prescan(text: bytes, limit: int, utf8: bool)");
        return NULL;
    }
    long long limit = PyLong_AsLongLong(args[1]);
    if (limit == -1 && PyErr_Occurred()) {
        return NULL;
    }
    int utf8 = PyObject_IsTrue(args[2]);
    if (utf8 < 0) {
        return NULL;
    }
    return PyLong_FromSsize_t(scan((const unsigned char *)PyBytes_AS_STRING(args[0]), PyBytes_GET_SIZE(args[0]), limit, utf8));
}

static PyObject *
prescan(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return call(args, nargs, BEST);
}

static PyObject *
prescan_scalar(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return call(args, nargs, scan_bytes);
}

static PyMethodDef methods[] = {
    {"prescan", (PyCFunction)(void (*)(void))prescan, METH_FASTCALL,
     "prescan(text: bytes, limit: int, utf8: bool) -> int\n\n"
     "-1: nests at most limit levels (and is UTF-8, when utf8); -2: nests deeper;\n"
     ">= 0: the byte offset of the first ill-formed UTF-8 sequence."},
    {"prescan_scalar", (PyCFunction)(void (*)(void))prescan_scalar, METH_FASTCALL,
     "prescan_scalar(text: bytes, limit: int, utf8: bool) -> int\n\n"
     "prescan, byte by byte (the implementation of machines without SSE2)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "lucent._prescan",
    "The pre-parse check of a JSON text's depth and UTF-8, in C (lucent/_prescan.c).", 0, methods,
};

PyMODINIT_FUNC
PyInit__prescan(void)
{
    fill_tables();
    return PyModule_Create(&module);
}
