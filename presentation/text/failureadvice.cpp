// SPDX-License-Identifier: GPL-3.0-or-later
#include "text/failureadvice.h"

#include <QCoreApplication>

namespace dimscope {

namespace {

QString tr(const char *text) { return QCoreApplication::translate("dimscope::FailureAdvice", text); }

QString adviceForKind(const QString &kind)
{
    if (kind == QLatin1String("model_import") || kind == QLatin1String("bad_model_ref"))
        return tr("The worker could not import the model. Check the model reference with File > Open Model… "
                  "(package.module:callable, path/to/file.py:callable or a model folder) and that its module "
                  "imports in the worker's Python (Edit > Preferences); the traceback below shows where the "
                  "import failed. Then Re-export.");
    if (kind == QLatin1String("model_load"))
        return tr("The model was found but could not be built: the traceback below shows the failing call. "
                  "Fix the callable (it must return a torch.nn.Module) or choose another with File > Open Model…, "
                  "then Re-export.");
    if (kind == QLatin1String("transformers_missing"))
        return tr("The worker's Python has no transformers: install it there or choose another interpreter in "
                  "Edit > Preferences.");
    if (kind == QLatin1String("cuda_unavailable"))
        return tr("The worker's torch sees no CUDA device: use Export > Export on CPU, or choose an interpreter "
                  "with a CUDA build of torch in Edit > Preferences.");
    if (kind == QLatin1String("worker_start") || kind == QLatin1String("torch_missing")
        || kind == QLatin1String("torch_too_old"))
        return tr("The export worker did not start: choose a Python with torch 2.6 or newer in Edit > Preferences "
                  "(the details below show what it printed).");
    if (kind == QLatin1String("worker_crashed") || kind == QLatin1String("worker_silent")
        || kind == QLatin1String("timeout"))
        return tr("The worker stopped during the export (details below). Re-export starts a fresh worker.");
    if (kind == QLatin1String("save_failed"))
        return tr("Choose another output with Export > Export Output File…, or free space, then Re-export.");
    if (kind == QLatin1String("structure_mismatch"))
        return tr("The constraints do not fit the inputs the model gets: check the leaf named below in the "
                  "Dims panel, then Re-export.");
    if (kind == QLatin1String("dynamic_specialized"))
        return tr("The model fixes these dims to a constant: make them static in the Dims panel, then Re-export.");
    if (kind == QLatin1String("capture"))
        return tr("The worker could not read the capture: reopen it with File > Open… (details below).");
    return QString();
}

} // namespace

QString FailureAdvice::forFailure(const WorkerFailure &failure)
{
    // torch's fixes are the advice; a cancel needs none.
    if (failure.hasFixes() || failure.kind == QLatin1String("cancelled"))
        return QString();
    // torch traced the model but its serializer cannot store a node of the program (the
    // worker's "torch could not write the archive (Failed serializing node ...)"): no
    // other file or free space helps, the model's code does.
    if (failure.kind == QLatin1String("save_failed") && failure.message.contains(QLatin1String("Failed serializing")))
        return tr("torch traced the model but cannot save the program: its serializer cannot store the node named "
                  "above, which the model's code put into the graph (another output file will not help). Choose the "
                  "model's export-friendly implementation where it has one (an attn_implementation or config option; "
                  "dimscope already builds transformers' attention masks without torch.vmap), then Re-export.");
    // data_dependent and unregistered_pytree have the worker's own hint in the details.
    return adviceForKind(failure.kind);
}

} // namespace dimscope
