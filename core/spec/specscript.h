// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "spec/specdialect.h"

#include <QString>

namespace dimscope {

class Capture;
class ConstraintSet;

// What SpecScript needs besides the capture and the constraints: the project's export
// settings and where the script's program goes.
struct SpecScriptOptions {
    SpecDialect dialect = SpecDialect::NamedDims;
    QString capturePath;     // as the script loads it (absolute)
    QString modelReference;  // the project's ("package.module:make", "/abs/file.py:make", a folder); empty: none
    int exampleCall = -1;    // < 0: the default example call (chooseExampleCall)
    bool strict = false;
    QString device = QStringLiteral("cpu");
    QString programPath = QStringLiteral("model.pt2"); // what the script saves and loads back
    QString torchVersion;    // the export runtime's torch; empty: not known (TorchFeatures)
};

// The export dimscope runs, as a complete Python script in one of the SpecDialects (the
// Spec tab, `dimscope-cli spec`): the model and the example call loaded through
// dimscope's Python API (dimscope.load_model, dimscope.load_capture), the
// dynamic_shapes in the dialect, the torch.export.export(...) call, dimscope.save_program
// and the dimscope.load_program() that reads it back. Every dialect exports the same
// symbolic dims for the bundled demo (tests/python/test_spec_script.py runs each);
// docs/spec-format.md, "The export as a script", says where they differ.
class SpecScript
{
public:
    static QString generate(const Capture &capture, const ConstraintSet &set, const SpecScriptOptions &options);
};

} // namespace dimscope
