// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace dimscope {

// Leaf key paths of a torch pytree TreeSpec (the `in_spec` JSON string of an
// exported program's module call signature: `[1, {"type", "context",
// "children_spec"}]`). The root is `(args, kwargs)`; positional args are named
// through forward_arg_names, so paths read like capture leaf paths:
// "input_ids", "past_key_values.key_cache[0]", "inputs['a'][1]".
class Pt2TreeSpec
{
public:
    // The most JSON elements parsed, the spec's and its contexts' together (a DOM
    // costs tens of bytes per element); key paths are at most 8 times the spec's length
    // in all.
    static constexpr qint64 kMaxElements = 1000000;
    // Leaf paths in flattening order; nullopt and *error on a spec it cannot read.
    static std::optional<QStringList> leafPaths(const QString &inSpec, const QStringList &forwardArgNames,
                                                QString *error);
    // The placeholder name torch.export gives the user input at a capture-style key
    // path: segments joined by "_", lowercased, non-alphanumerics of dict keys -> "_"
    // ("past_key_values.key_cache[0]" -> "past_key_values_key_cache_0").
    static QString placeholderName(const QString &path);
};

} // namespace dimscope
