// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

class QWidget;

namespace dimscope {

// Running a project's model is the user's choice (docs/security.md). A `.dimscope`
// project names a model reference that Export imports and runs in the worker; a
// project may come from anyone, so the first export of a project opened from a given
// place asks, showing what will run, and remembers the answer for that place and
// reference. References into dimscope's own package (the demo) and models the user
// chose in this session run without asking.
class ModelConsent
{
public:
    // True when exporting `modelRef` of the project at `projectPath` needs the user's yes.
    static bool needsApproval(const QString &projectPath, const QString &modelRef);
    static void approve(const QString &projectPath, const QString &modelRef);
    // The question (a modal message box, objectName "modelConsentDialog"); true when the
    // user chose to run the model. Remembers a yes.
    static bool ask(QWidget *parent, const QString &projectPath, const QString &modelRef);

private:
    static QString key(const QString &projectPath, const QString &modelRef);
};

} // namespace dimscope
