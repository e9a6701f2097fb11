// SPDX-License-Identifier: GPL-3.0-or-later
#include "projectcontroller.h"

#include "document/documentopener.h"
#include "exportoptionsdialog.h"
#include "messagebanner.h"
#include "document/projectdocument.h"
#include "settings/recentfiles.h"
#include "settings/settingskeys.h"
#include "constraints/constraintsetjson.h"
#include "spec/pythonspecemitter.h"

#include <QClipboard>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QMessageBox>
#include <QSettings>

namespace dimscope {

ProjectController::ProjectController(ProjectDocument *document, MessageBanner *banner, QWidget *window)
    : QObject(window), m_document(document), m_banner(banner), m_opener(new DocumentOpener(document, this)),
      m_window(window)
{
    m_opener->setMayReplaceHook([this] { return maybeSave(); });
}

bool ProjectController::open(const QString &path)
{
    return m_opener->open(path);
}

QString ProjectController::askSavePath(const QString &title, const QString &filter, const QString &suffix,
                                       const QString &suggested)
{
    QString path;
    if (m_savePathHook) {
        path = m_savePathHook(suggested);
    } else {
        path = QFileDialog::getSaveFileName(m_window, title, suggested, filter);
    }
    if (!path.isEmpty() && QFileInfo(path).suffix().isEmpty())
        path += QLatin1Char('.') + suffix;
    return path;
}

bool ProjectController::save()
{
    if (m_document->projectPath().isEmpty())
        return saveAs();
    return saveTo(m_document->projectPath());
}

bool ProjectController::saveAs()
{
    QSettings settings;
    QString suggested = m_document->projectPath();
    if (suggested.isEmpty()) {
        const QFileInfo capture(m_document->capturePath());
        const QString folder = settings.value(settings::LastProjectFolder, capture.absolutePath()).toString();
        suggested = folder + QLatin1Char('/') + capture.completeBaseName() + QStringLiteral(".dimscope");
    }
    const QString path = askSavePath(tr("Save Project"), tr("dimscope projects (*.dimscope)"), QStringLiteral("dimscope"), suggested);
    if (path.isEmpty())
        return false;
    settings.setValue(settings::LastProjectFolder, QFileInfo(path).absolutePath());
    return saveTo(path);
}

bool ProjectController::saveTo(const QString &path)
{
    QString error;
    if (!m_document->save(path, &error)) {
        m_banner->showMessage(MessageBanner::Kind::Error, tr("Cannot save the project: %1").arg(error));
        return false;
    }
    QSettings settings;
    RecentFiles(settings).add(QFileInfo(path).absoluteFilePath());
    m_banner->showMessage(MessageBanner::Kind::Info, tr("Saved %1").arg(QFileInfo(path).fileName()));
    emit saved(path);
    return true;
}

bool ProjectController::maybeSave()
{
    if (!m_document->isModified())
        return true;
    const auto answer = QMessageBox::warning(
        m_window, tr("Unsaved changes"),
        tr("The project has unsaved changes (constraints, model or export options). Save them?"),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Save)
        return save();
    return answer == QMessageBox::Discard;
}

void ProjectController::copyDynamicShapes()
{
    if (!m_document->hasCapture())
        return;
    const QString python = PythonSpecEmitter::generate(m_document->capture(), m_document->constraints(),
                                                       m_document->exportOptions().exampleCall);
    QGuiApplication::clipboard()->setText(python);
    m_banner->showMessage(MessageBanner::Kind::Info, tr("dynamic_shapes copied to the clipboard as Python (%n line(s)).",
                                                        nullptr, int(python.count(QLatin1Char('\n')))));
}

bool ProjectController::saveConstraintsJson(const QString &given)
{
    QString path = given;
    if (path.isEmpty()) {
        const QFileInfo base(m_document->projectPath().isEmpty() ? m_document->capturePath() : m_document->projectPath());
        path = askSavePath(tr("Save Constraints as JSON"), tr("Constraint sets (*.json)"), QStringLiteral("json"),
                           base.absolutePath() + QLatin1Char('/') + base.completeBaseName() + QStringLiteral(".constraints.json"));
        if (path.isEmpty())
            return false;
    }
    QString error;
    if (!ConstraintSetJson::writeFile(path, m_document->constraints(), &error)) {
        m_banner->showMessage(MessageBanner::Kind::Error, tr("Cannot save the constraints: %1").arg(error));
        return false;
    }
    m_banner->showMessage(MessageBanner::Kind::Info, tr("Constraints saved to %1").arg(QDir::toNativeSeparators(path)));
    return true;
}

void ProjectController::editExportOptions()
{
    ExportOptionsDialog dialog(m_document, m_window);
    if (dialog.exec() == QDialog::Accepted)
        m_document->setExportOptions(dialog.options());
}

} // namespace dimscope
