#pragma once

#include "pt2/pt2program.h"

#include <QString>

#include <optional>

namespace dimscope {

// Reads the interface of a torch.export .pt2 archive (no Python, no LibTorch): both
// the torch 2.5-2.7 layout (root-level serialized_exported_program.json) and the
// torch 2.8+ PT2 archive (<root>/models/<name>.json; the model named "model", else
// the first by name). Malformed input gives nullopt and an error naming the file,
// the record and the place in the JSON.
class Pt2Reader
{
public:
    static std::optional<Pt2Program> open(const QString &path, QString *error);
};

} // namespace dimscope
