// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/dtype.h"

#include <QString>
#include <QVector>

#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace dimscope {

class InternPool;

// The tensor table of a safetensors header, parsed and validated in one pass over
// the mapped header bytes (docs/capture-format.md, "Container"). Names are views
// into the header, which must outlive this object.
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
    const std::vector<Tensor> &tensors() const { return m_tensors; }
    bool hasMetadata() const { return m_hasMetadata; }
    bool hasManifest() const { return m_hasManifest; }
    std::string_view manifest() const { return m_manifest; } // decoded UTF-8 JSON text

private:
    bool parseTensor(class JsonCursor &c, std::string_view name, qint64 dataSize, InternPool &pool, QString *error);
    bool parseMetadata(class JsonCursor &c, QString *error);
    bool validateLayout(QString *error);

    std::vector<Tensor> m_tensors; // sorted by name after parse()
    std::deque<std::string> m_escapedNames; // names that had escapes, decoded
    std::string_view m_manifest;
    bool m_hasMetadata = false;
    bool m_hasManifest = false;
};

QString quoted(std::string_view utf8); // 'name' for messages

} // namespace dimscope
