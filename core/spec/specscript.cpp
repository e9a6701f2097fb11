// SPDX-License-Identifier: GPL-3.0-or-later
#include "spec/specscript.h"

#include "capture/capture.h"
#include "constraints/constraintset.h"
#include "spec/additionalinputsemitter.h"
#include "spec/hintspecemitter.h"
#include "spec/pythonliteral.h"
#include "spec/pythonspecemitter.h"
#include "spec/shapescollectionemitter.h"
#include "spec/spectree.h"
#include "spec/torchfeatures.h"
#include "util/terminaltext.h"

namespace dimscope {

namespace {

QString header(const Capture &capture, int call, const SpecScriptOptions &o)
{
    // Names from the capture and the project are escaped: a line feed in one cannot end
    // the comment and start a line of code.
    QString out = QStringLiteral("# The export dimscope runs%1, as a script: dynamic_shapes as %2.\n")
                      .arg(capture.modelClass.isEmpty() ? QString() : QStringLiteral(" for ") + TerminalText::field(capture.modelClass),
                           SpecDialects::label(o.dialect));
    out += QStringLiteral("# Example call %1 of the capture; torch %2.\n")
               .arg(call)
               .arg(o.torchVersion.isEmpty() ? QStringLiteral("version not known (the script checks what it needs)")
                                             : TerminalText::field(o.torchVersion) + QStringLiteral(" (the export runtime)"));
    out += QStringLiteral("import torch\n");
    if (o.dialect != SpecDialect::AdditionalInputs)
        out += QStringLiteral("from torch.export import Dim\n");
    return out + QStringLiteral("\nimport dimscope\n\n");
}

QString inputs(int call, const SpecScriptOptions &o)
{
    QString out = QStringLiteral("# The model and the example call, loaded as dimscope's export loads them.\n");
    if (o.modelReference.isEmpty())
        out += QStringLiteral("raise SystemExit(\"the project names no model: load yours into `model` here\")\n");
    else
        out += QStringLiteral("model = dimscope.load_model(%1)\n").arg(PythonLiteral::string(o.modelReference));
    const bool cpu = o.device == QLatin1String("cpu");
    if (!cpu)
        out += QStringLiteral("model = model.to(%1)\n").arg(PythonLiteral::string(o.device));
    out += QStringLiteral("capture = dimscope.load_capture(%1%2)\n")
               .arg(PythonLiteral::string(o.capturePath),
                    cpu ? QString() : QStringLiteral(", device=") + PythonLiteral::string(o.device));
    out += QStringLiteral("dimscope.register_capture_flattening(capture.manifest)\n");
    return out + QStringLiteral("call = capture.calls[%1]\nargs, kwargs = call.call_arguments()\n\n").arg(call);
}

QString dynamicShapes(const Capture &capture, const ConstraintSet &set, int call, const SpecScriptOptions &o)
{
    const SpecNode tree = SpecTree::build(capture, set, call);
    const QStringList used = SpecTree::usedDims(tree, set);
    const TorchFeatures torch(o.torchVersion);
    switch (o.dialect) {
    case SpecDialect::NamedDims:
        return PythonSpecEmitter::declarations(set, used) + (used.isEmpty() ? QString() : QStringLiteral("\n"))
            + PythonSpecEmitter::assignment(tree);
    case SpecDialect::DimHints: return HintSpecEmitter::body(set, tree, used, torch);
    case SpecDialect::ShapesCollection: return ShapesCollectionEmitter::body(set, tree, used);
    case SpecDialect::AdditionalInputs: return AdditionalInputsEmitter::body(capture, tree, call, torch);
    }
    return {};
}

QString exportAndLoad(const SpecScriptOptions &o)
{
    const QString pt2 = PythonLiteral::string(o.programPath);
    return QStringLiteral("\nprogram = torch.export.export(model, args, kwargs, dynamic_shapes=dynamic_shapes, strict=%1)\n"
                          "print(program.range_constraints)\n"
                          "dimscope.save_program(program, %2)\n\n"
                          "# Where the program is used (another process: the model's code imported first, as\n"
                          "# docs/real-models.md says); load_program registers the cache classes it records.\n"
                          "program = dimscope.load_program(%2)\n")
        .arg(o.strict ? QStringLiteral("True") : QStringLiteral("False"), pt2);
}

} // namespace

QString SpecScript::generate(const Capture &capture, const ConstraintSet &set, const SpecScriptOptions &options)
{
    const int call = capture.calls.isEmpty() ? 0 : SpecTree::resolveCall(capture, set, options.exampleCall);
    QString out = header(capture, call, options);
    if (capture.calls.isEmpty())
        return out + QStringLiteral("# The capture holds no call: there is nothing to export with.\n");
    return out + inputs(call, options) + dynamicShapes(capture, set, call, options) + exportAndLoad(options);
}

} // namespace dimscope
