// SPDX-License-Identifier: GPL-3.0-or-later
#include "capture/safetensorsheader.h"

#include "capture/internpool.h"
#include "json/jsoncursor.h"
#include "util/terminaltext.h"

#include <QVarLengthArray>

#include <algorithm>
#include <functional>
#include <limits>

namespace dimscope {

QString quoted(std::string_view utf8)
{
    // Escaped and, when long, elided: an error message stays one readable line.
    return TerminalText::quoted(QString::fromUtf8(utf8.data(), qsizetype(utf8.size())));
}

namespace {
bool jsonError(const JsonCursor &c, QString *error);

QString shapeText(const QVector<qint64> &shape)
{
    QStringList parts;
    for (qint64 d : shape)
        parts << QString::number(d);
    return QLatin1Char('[') + parts.join(QLatin1String(", ")) + QLatin1Char(']');
}
} // namespace

bool SafetensorsHeader::parse(char *header, qint64 headerSize, qint64 dataSize, InternPool &pool, QString *error)
{
    // Offsets in messages count from the start of the file (the header follows the 8-byte length).
    JsonCursor c(header, header + headerSize, 8);
    c.setExact(true);
    const JsonCursor::Type top = c.peekType();
    if (top != JsonCursor::Type::Object) {
        *error = top == JsonCursor::Type::Invalid
            ? QStringLiteral("header is not valid JSON (it must start with '{')")
            : QStringLiteral("header is not a JSON object (found %1)").arg(QLatin1String(JsonCursor::typeName(top)));
        return false;
    }
    c.beginObject(false); // tensor names: indexNames() refuses one named twice
    bool first = true;
    std::string_view key;
    std::string keyStorage;
    while (c.nextMember(first, key, keyStorage)) {
        if (key == "__metadata__") {
            if (m_hasMetadata) {
                *error = QStringLiteral("header has two __metadata__ entries");
                return false;
            }
            m_hasMetadata = true;
            if (!parseMetadata(c, error))
                return false;
            continue;
        }
        if (key.data() == keyStorage.data()) { // had escapes: keep the decoded name
            m_escapedNames.push_back(keyStorage);
            key = m_escapedNames.back();
        }
        if (!parseTensor(c, key, dataSize, pool, error))
            return false;
    }
    if (!c.ok())
        return jsonError(c, error);
    if (!c.atEnd()) {
        c.fail(QStringLiteral("unexpected data after the header object"));
        return jsonError(c, error);
    }
    // The table grew by doubling: give the slack back. Counting the entries first to
    // reserve exactly (a search for "data_offsets" over the whole header) cost 10% of
    // the open time; the slack lives only until here, while the header is parsed,
    // well below the open's peak (the calls' structures, built afterwards).
    m_tensors.shrink_to_fit();
    return indexNames(error) && checkNoOverlap(error);
}

namespace {

// Names the tensor in messages. Formatted only when a message is built: formatting
// it for every tensor would cost more than parsing.
struct TensorWhere {
    std::string_view name;
    operator QString() const { return QStringLiteral("tensor %1").arg(quoted(name)); }
};

bool jsonError(const JsonCursor &c, QString *error)
{
    // Refused JSON (a number out of range, a member named twice) is valid JSON.
    *error = (c.refused() ? QStringLiteral("header: %1") : QStringLiteral("header is not valid JSON: %1")).arg(c.error());
    return false;
}

bool readDtype(JsonCursor &c, const TensorWhere &where, DType *out, QString *error)
{
    if (c.peekType() != JsonCursor::Type::String) {
        if (c.peekType() == JsonCursor::Type::Invalid)
            return c.skipValue() || jsonError(c, error);
        *error = QStringLiteral("%1: dtype must be a string").arg(QString(where));
        return false;
    }
    std::string storage;
    std::string_view dt;
    if (!c.readString(dt, storage))
        return jsonError(c, error);
    const auto d = dtype::fromSafetensors(dt.data(), qsizetype(dt.size()));
    if (!d) {
        *error = QStringLiteral("%1: unknown dtype %2").arg(QString(where), quoted(dt));
        return false;
    }
    *out = *d;
    return true;
}

// The integers of a shape or of data_offsets: no allocation for the usual counts
// (growing a QVector from empty for every tensor cost a tenth of the open time).
using Ints = QVarLengthArray<qint64, 8>;

bool readShape(JsonCursor &c, const TensorWhere &where, InternPool &pool, QVector<qint64> *out, QString *error)
{
    Ints shape;
    if (!c.readNonNegativeInts(shape, std::numeric_limits<int>::max()) || !c.ok()) {
        *error = QStringLiteral("%1: shape must be a list of non-negative integers").arg(QString(where));
        return false;
    }
    *out = pool.shape(QVector<qint64>(shape.cbegin(), shape.cend()));
    return true;
}

bool readOffsets(JsonCursor &c, const TensorWhere &where, SafetensorsHeader::Tensor *t, QString *error)
{
    Ints v;
    if (!c.readNonNegativeInts(v, 2) || !c.ok() || v.size() != 2 || v[0] > v[1]) {
        *error = QStringLiteral("%1: data_offsets must be [begin, end] with 0 <= begin <= end").arg(QString(where));
        return false;
    }
    t->begin = v[0];
    t->end = v[1];
    return true;
}

// The tensor's bytes lie inside the data area and are exactly what its dtype and
// shape need.
bool checkExtent(const SafetensorsHeader::Tensor &t, const TensorWhere &where, qint64 dataSize, QString *error)
{
    if (t.end > dataSize) {
        *error = QStringLiteral("%1: data_offsets [%2, %3] run past the end of the data area (%4 bytes)")
                     .arg(QString(where)).arg(t.begin).arg(t.end).arg(dataSize);
        return false;
    }
    // The size check must not depend on the order of the dimensions: multiplied as
    // given, [0, 2^62, 2^62] reached 0 before it could overflow while [2^62, 2^62, 0]
    // overflowed. Zeros count as 1 here: a shape whose other dimensions overflow is
    // refused even though a 0 makes it empty: the contiguous strides that LibTorch
    // and torch derive from it (products of the sizes to the right, zeros taken as
    // 1) would overflow, and so would any count that multiplies the sizes in
    // another order than this loop. No real tensor has such a shape.
    qint64 bytes = dtype::byteSize(t.dtype);
    for (qint64 d : t.shape) {
        if (__builtin_mul_overflow(bytes, std::max<qint64>(d, 1), &bytes)) {
            *error = t.shape.contains(0)
                ? QStringLiteral("%1: shape %2 is too large (its other dimensions overflow 64 bits, though a 0 makes it empty)")
                      .arg(QString(where), shapeText(t.shape))
                : QStringLiteral("%1: shape %2 is too large (its byte size overflows)").arg(QString(where), shapeText(t.shape));
            return false;
        }
    }
    if (t.shape.contains(0))
        bytes = 0;
    if (bytes != t.end - t.begin) {
        *error = QStringLiteral("%1: data_offsets [%2, %3] hold %4 bytes but shape %5 of %6 needs %7")
                     .arg(QString(where)).arg(t.begin).arg(t.end).arg(t.end - t.begin)
                     .arg(shapeText(t.shape), dtype::safetensorsName(t.dtype)).arg(bytes);
        return false;
    }
    return true;
}

} // namespace

bool SafetensorsHeader::parseTensor(JsonCursor &c, std::string_view name, qint64 dataSize, InternPool &pool, QString *error)
{
    const TensorWhere where{name};
    if (c.peekType() != JsonCursor::Type::Object) {
        if (c.peekType() == JsonCursor::Type::Invalid)
            return c.skipValue() || jsonError(c, error);
        *error = QStringLiteral("%1: entry must be an object with dtype, shape and data_offsets").arg(QString(where));
        return false;
    }
    // Member names are checked here, not by the cursor (beginObject(false)): one
    // entry a tensor, and the three known names are flags already.
    c.beginObject(false);
    Tensor t;
    t.name = name;
    bool hasDtype = false, hasShape = false, hasOffsets = false;
    std::vector<std::string> otherNames;
    bool first = true;
    std::string_view key;
    std::string keyStorage;
    while (c.nextMember(first, key, keyStorage)) {
        const bool twice = key == "dtype" ? hasDtype : key == "shape" ? hasShape : key == "data_offsets" ? hasOffsets
            : std::find(otherNames.cbegin(), otherNames.cend(), key) != otherNames.cend();
        if (twice) {
            c.failDuplicate(key);
            return jsonError(c, error);
        }
        bool read = true;
        if (key == "dtype") {
            read = hasDtype = readDtype(c, where, &t.dtype, error);
        } else if (key == "shape") {
            read = hasShape = readShape(c, where, pool, &t.shape, error);
        } else if (key == "data_offsets") {
            read = hasOffsets = readOffsets(c, where, &t, error);
        } else {
            otherNames.emplace_back(key);
            if (!c.skipValue())
                return jsonError(c, error);
        }
        if (!read)
            return false;
    }
    if (!c.ok())
        return jsonError(c, error);
    const char *missing = !hasDtype ? "dtype" : !hasShape ? "shape" : !hasOffsets ? "data_offsets" : nullptr;
    if (missing) {
        *error = QStringLiteral("%1: no %2").arg(QString(where), QLatin1String(missing));
        return false;
    }
    if (!checkExtent(t, where, dataSize, error))
        return false;
    m_tensors.push_back(std::move(t));
    return true;
}

bool SafetensorsHeader::parseMetadata(JsonCursor &c, QString *error)
{
    if (c.peekType() != JsonCursor::Type::Object) {
        *error = QStringLiteral("__metadata__ must be an object of strings");
        return false;
    }
    bool notString = false;
    const bool read = c.forEachMember([&](std::string_view key) {
        if (c.peekType() != JsonCursor::Type::String) {
            if (c.peekType() == JsonCursor::Type::Invalid) {
                c.skipValue(); // fails, with the position and what was found
                return false;
            }
            *error = QStringLiteral("__metadata__[%1] is not a string").arg(quoted(key));
            notString = true;
            return false;
        }
        if (key == "dimscope.manifest") {
            // The manifest is by far the largest string: decode it where it lies.
            m_hasManifest = c.readStringInPlace(m_manifest);
            return m_hasManifest;
        }
        std::string storage;
        std::string_view value;
        return c.readString(value, storage);
    });
    return read || (!notString && (c.ok() || jsonError(c, error)));
}

bool SafetensorsHeader::indexNames(QString *error)
{
    m_byHash.clear();
    m_byHash.reserve(m_tensors.size());
    const std::hash<std::string_view> hash;
    for (size_t i = 0; i < m_tensors.size(); ++i)
        m_byHash.emplace_back(hash(m_tensors[i].name), int(i));
    std::sort(m_byHash.begin(), m_byHash.end());
    for (size_t i = 1; i < m_byHash.size(); ++i) {
        // Equal names have equal hashes: only runs of one hash need comparing.
        for (size_t j = i; j-- > 0 && m_byHash[j].first == m_byHash[i].first;) {
            const Tensor &t = m_tensors[size_t(m_byHash[i].second)];
            if (m_tensors[size_t(m_byHash[j].second)].name == t.name) {
                *error = QStringLiteral("header names tensor %1 twice").arg(quoted(t.name));
                return false;
            }
        }
    }
    return true;
}

// The non-empty tensors' bytes must not overlap. Writers lay the data out in the
// header's order, so the table is usually sorted by offset already: checked in one
// pass, sorted only when it is not.
bool SafetensorsHeader::checkNoOverlap(QString *error) const
{
    std::vector<int> order;
    order.reserve(m_tensors.size());
    for (size_t i = 0; i < m_tensors.size(); ++i) {
        if (m_tensors[i].end > m_tensors[i].begin)
            order.push_back(int(i));
    }
    const auto byOffset = [this](int a, int b) {
        const Tensor &x = m_tensors[size_t(a)];
        const Tensor &y = m_tensors[size_t(b)];
        return x.begin < y.begin || (x.begin == y.begin && x.name < y.name);
    };
    if (!std::is_sorted(order.begin(), order.end(), byOffset))
        std::sort(order.begin(), order.end(), byOffset);
    for (size_t i = 1; i < order.size(); ++i) {
        const Tensor &a = m_tensors[size_t(order[i - 1])];
        const Tensor &b = m_tensors[size_t(order[i])];
        if (b.begin < a.end) {
            *error = QStringLiteral("tensors %1 [%2, %3) and %4 [%5, %6) overlap")
                         .arg(quoted(a.name)).arg(a.begin).arg(a.end).arg(quoted(b.name)).arg(b.begin).arg(b.end);
            return false;
        }
    }
    return true;
}

const SafetensorsHeader::Tensor *SafetensorsHeader::find(std::string_view name) const
{
    const size_t h = std::hash<std::string_view>()(name);
    auto it = std::lower_bound(m_byHash.begin(), m_byHash.end(), std::make_pair(h, -1));
    for (; it != m_byHash.end() && it->first == h; ++it) {
        const Tensor &t = m_tensors[size_t(it->second)];
        if (t.name == name)
            return &t;
    }
    return nullptr;
}

void SafetensorsHeader::keepNamesOnly()
{
    size_t total = 0;
    for (const Tensor &t : m_tensors)
        total += t.name.size();
    m_names = TensorNames();
    m_names.reserve(qsizetype(m_tensors.size()), qsizetype(total)); // the views stay valid
    for (Tensor &t : m_tensors)
        t.name = m_names.append(t.name);
    m_escapedNames.clear();
}

} // namespace dimscope
