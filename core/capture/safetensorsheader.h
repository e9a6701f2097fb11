// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/dtype.h"
#include "capture/tensornames.h"

#include <QString>
#include <QVector>

#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace dimscope {

class InternPool;

// The tensor table of a safetensors header, parsed and validated in one pass over
// the header bytes (docs/capture-format.md, "Container"). Names are views into the
// header until keepNamesOnly() copies them into storage of this object's own.
class SafetensorsHeader
{
public:
    struct Tensor {
        std::string_view name;
        DType dtype = DType::F32;
        QVector<qint64> shape; // interned
        qint64 begin = 0;      // relative to the data area
        qint64 end = 0;
    };

    // `header` is the JSON text (writable: the manifest string is decoded in place),
    // `dataSize` the size of the data area behind it. On failure returns false with
    // *error saying what is wrong (without the file name).
    bool parse(char *header, qint64 headerSize, qint64 dataSize, InternPool &pool, QString *error);

    const Tensor *find(std::string_view name) const;
    const std::vector<Tensor> &tensors() const { return m_tensors; } // in header order

    // Copies the tensor names out of the header, so that every byte of it but the
    // manifest may be dropped: the table's text is about 40% of a capture's header.
    void keepNamesOnly();
    const TensorNames &names() const { return m_names; } // after keepNamesOnly()
    bool hasMetadata() const { return m_hasMetadata; }
    bool hasManifest() const { return m_hasManifest; }
    std::string_view manifest() const { return m_manifest; } // decoded UTF-8 JSON text

private:
    bool parseTensor(class JsonCursor &c, std::string_view name, qint64 dataSize, InternPool &pool, QString *error);
    bool parseMetadata(class JsonCursor &c, QString *error);
    bool indexNames(QString *error);
    bool checkNoOverlap(QString *error) const;

    std::vector<Tensor> m_tensors; // in header order
    // (hash of the name, index into m_tensors), sorted: find() and the duplicate
    // check. Sorting the table by name instead cost a fifth of a capture's open
    // (33,280 names compared with memcmp, n log n times).
    std::vector<std::pair<size_t, int>> m_byHash;
    std::deque<std::string> m_escapedNames; // names that had escapes, decoded
    TensorNames m_names; // keepNamesOnly(): every name, back to back
    std::string_view m_manifest;
    bool m_hasMetadata = false;
    bool m_hasManifest = false;
};

QString quoted(std::string_view utf8); // 'name' for messages

} // namespace dimscope
