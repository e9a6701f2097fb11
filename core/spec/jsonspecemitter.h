// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QJsonObject>

namespace dimscope {

class Capture;
class ConstraintSet;

// Writes the "dimscope.dynamic_shapes" document of docs/spec-format.md: what the
// export worker reads (dimscope.worker.spec.load_dynamic_shapes).
class JsonSpecEmitter
{
public:
    static constexpr int kVersion = 1;
    // `exampleCall` < 0: the default example call (see chooseExampleCall).
    static QByteArray generate(const Capture &capture, const ConstraintSet &set, int exampleCall = -1);
    // The same document as an object, built directly (the worker request embeds it:
    // no detour through text that is parsed back).
    static QJsonObject document(const Capture &capture, const ConstraintSet &set, int exampleCall = -1);
};

} // namespace dimscope
