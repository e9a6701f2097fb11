// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelconsent.h"

#include "project/modelreference.h"
#include "settings/settingskeys.h"
#include "util/regularfile.h"
#include "util/terminaltext.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStringList>

namespace dimscope {

namespace {

QString canonicalOrAbsolute(const QString &path)
{
    const QFileInfo info(path);
    const QString canonical = info.canonicalFilePath();
    return canonical.isEmpty() ? info.absoluteFilePath() : canonical;
}

// No Python model file is this large; a larger one is refused rather than hashed on
// the GUI thread (a project naming a 10 GB "model.py" would freeze the window).
constexpr qint64 kMaxModelFileBytes = 64 * 1024 * 1024;

// The hex SHA-256 of the file at `path`, read through RegularFile (a FIFO or a device
// named "model.py" is refused, not read forever); empty with *error when unreadable.
QString sha256Of(const QString &path, QString *error)
{
    QFile file;
    if (!RegularFile::open(file, path, error))
        return {};
    if (file.size() > kMaxModelFileBytes) {
        *error = QObject::tr("it is %1 bytes long; dimscope does not run a model file over %2 MB")
                     .arg(file.size())
                     .arg(kMaxModelFileBytes / (1024 * 1024));
        return {};
    }
    QCryptographicHash hash(QCryptographicHash::Sha256);
    qint64 total = 0;
    while (!file.atEnd()) { // bounded whatever the file grows to while it is read
        const QByteArray chunk = file.read(1024 * 1024);
        if (chunk.isEmpty() && file.error() != QFileDevice::NoError) {
            *error = file.errorString();
            return {};
        }
        if (chunk.isEmpty())
            break;
        total += chunk.size();
        if (total > kMaxModelFileBytes) {
            *error = QObject::tr("it grew past %1 MB while it was read").arg(kMaxModelFileBytes / (1024 * 1024));
            return {};
        }
        hash.addData(chunk);
    }
    return QString::fromLatin1(hash.result().toHex());
}

} // namespace

QString ModelConsent::Approval::describe() const
{
    const QString content = sha256.isEmpty() ? QString() : QObject::tr(" (SHA-256 %1…)").arg(sha256.left(12));
    return QObject::tr("%1%2 — project %3").arg(QDir::toNativeSeparators(model), content, QDir::toNativeSeparators(project));
}

bool ModelConsent::approvalFor(const QString &projectPath, const QString &modelRef, Approval *approval, QString *error)
{
    const QFileInfo project(projectPath);
    const std::optional<ModelReference> ref = ModelReference::resolve(modelRef, project.absoluteDir(), error);
    if (!ref)
        return false;
    approval->project = canonicalOrAbsolute(projectPath);
    approval->model = ref->text();
    approval->sha256.clear();
    approval->dimscopeOwn = ref->isDimscopeOwn();
    if (ref->kind() != ModelReference::Kind::Module) {
        const QString canonical = ref->canonicalPath();
        if (canonical.isEmpty()) {
            *error = QObject::tr("the project's model %1 does not exist").arg(QDir::toNativeSeparators(ref->path()));
            return false;
        }
        approval->model = ref->kind() == ModelReference::Kind::File ? canonical + QLatin1Char(':') + ref->callable() : canonical;
    }
    if (ref->kind() == ModelReference::Kind::File) {
        QString why;
        approval->sha256 = sha256Of(ref->canonicalPath(), &why);
        if (approval->sha256.isEmpty()) {
            *error = QObject::tr("the project's model file %1 cannot be read: %2").arg(QDir::toNativeSeparators(ref->canonicalPath()), why);
            return false;
        }
    }
    // JSON, not a joined string: a path may hold any character but NUL, newlines too.
    approval->entry = QString::fromUtf8(
        QJsonDocument(QJsonArray{approval->project, approval->model, approval->sha256}).toJson(QJsonDocument::Compact));
    return true;
}

QStringList ModelConsent::stored() { return QSettings().value(settings::ApprovedModels).toStringList(); }

QString ModelConsent::refusal(const QString &projectPath, const QString &modelRef)
{
    Approval approval;
    QString error;
    return approvalFor(projectPath, modelRef, &approval, &error) ? QString() : error;
}

bool ModelConsent::needsApproval(const QString &projectPath, const QString &modelRef)
{
    if (modelRef.isEmpty())
        return false;
    Approval approval;
    QString error;
    if (!approvalFor(projectPath, modelRef, &approval, &error))
        return true;
    return !approval.dimscopeOwn && !stored().contains(approval.entry);
}

void ModelConsent::approve(const QString &projectPath, const QString &modelRef)
{
    Approval approval;
    QString error;
    if (!approvalFor(projectPath, modelRef, &approval, &error))
        return;
    QStringList approved = stored();
    if (!approved.contains(approval.entry))
        approved << approval.entry;
    QSettings().setValue(settings::ApprovedModels, approved);
}

QVector<ModelConsent::Approval> ModelConsent::approvals()
{
    QVector<Approval> out;
    for (const QString &entry : stored()) {
        const QJsonArray parts = QJsonDocument::fromJson(entry.toUtf8()).array();
        if (parts.size() == 3)
            out.append(Approval{parts.at(0).toString(), parts.at(1).toString(), parts.at(2).toString(), entry});
    }
    return out;
}

void ModelConsent::revoke(const QStringList &entries)
{
    QStringList approved = stored();
    for (const QString &entry : entries)
        approved.removeAll(entry);
    QSettings().setValue(settings::ApprovedModels, approved);
}

bool ModelConsent::ask(QWidget *parent, const QString &projectPath, const QString &modelRef)
{
    Approval approval;
    QString error;
    if (!approvalFor(projectPath, modelRef, &approval, &error))
        return false;
    QMessageBox box(QMessageBox::Warning, QObject::tr("Run the project's model?"),
                    QObject::tr("Exporting runs Python code that this project names:"), QMessageBox::Cancel, parent);
    box.setObjectName(QStringLiteral("modelConsentDialog"));
    const QString content = approval.sha256.isEmpty()
        ? QObject::tr("<p>The worker imports this module from its Python environment.</p>")
        : QObject::tr("<p>File content SHA-256 <code>%1</code>. dimscope asks again when the file changes.</p>")
              .arg(approval.sha256);
    box.setInformativeText(QObject::tr("<p><code>%1</code></p>%2<p>from the project <code>%3</code>.</p>"
                                       "<p>The export worker imports and calls it with your Python interpreter, "
                                       "with your permissions. Run it only if you trust where the project "
                                       "comes from. Edit › Preferences lists the models you allowed and "
                                       "revokes them.</p>")
                               // Escaped as on a terminal: a bidi override in a file name
                               // cannot make the model read as another (docs/security.md).
                               .arg(TerminalText::escaped(QDir::toNativeSeparators(approval.model)).toHtmlEscaped(), content,
                                    TerminalText::escaped(QDir::toNativeSeparators(approval.project)).toHtmlEscaped()));
    QPushButton *run = box.addButton(QObject::tr("Run the Model"), QMessageBox::AcceptRole);
    run->setObjectName(QStringLiteral("runModelButton"));
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    if (box.clickedButton() != run)
        return false;
    // The yes is for what was shown: the file as it was hashed for the question.
    QStringList approved = stored();
    if (!approved.contains(approval.entry))
        approved << approval.entry;
    QSettings().setValue(settings::ApprovedModels, approved);
    return true;
}

bool ModelConsent::askRemoteCode(QWidget *parent, const QString &folder, const QStringList &sources,
                                 const QMap<QString, QString> &files)
{
    const auto shown = [](const QString &text) { return TerminalText::escaped(QDir::toNativeSeparators(text)).toHtmlEscaped(); };
    QStringList askers, code;
    for (const QString &source : sources)
        askers << QStringLiteral("<code>%1</code>").arg(shown(QFileInfo(source).fileName()));
    for (auto it = files.begin(); it != files.end(); ++it)
        code << (it.value().isEmpty() ? QObject::tr("<li><code>%1</code> (not in the folder: transformers would look "
                                                    "for it elsewhere)</li>").arg(shown(it.key()))
                                      : QObject::tr("<li><code>%1</code><br>SHA-256 <code>%2</code></li>").arg(shown(it.key()), it.value()));
    QMessageBox box(QMessageBox::Warning, QObject::tr("Run the model folder's own code?"),
                    QObject::tr("This model folder asks transformers to run Python code of its own:"), QMessageBox::Cancel,
                    parent);
    box.setObjectName(QStringLiteral("remoteCodeConsentDialog"));
    box.setInformativeText(QObject::tr("<p><code>%1</code>: %2 name <code>auto_map</code>.</p><ul>%3</ul>"
                                       "<p>The recording worker would import these files with your permissions "
                                       "(trust_remote_code). Run them only if you trust where the folder comes "
                                       "from; otherwise nothing of it is imported and the recording does not "
                                       "start. dimscope asks again at each recording, and the worker refuses "
                                       "the files if they change meanwhile.</p>")
                               .arg(shown(folder), askers.join(QObject::tr(" and ")), code.join(QString())));
    QPushButton *run = box.addButton(QObject::tr("Run the Folder's Code"), QMessageBox::AcceptRole);
    run->setObjectName(QStringLiteral("runRemoteCodeButton"));
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    return box.clickedButton() == run;
}

bool ModelConsent::askInputsScript(QWidget *parent, const QString &reference, const QString &file, const QString &sha256)
{
    const auto shown = [](const QString &text) { return TerminalText::escaped(QDir::toNativeSeparators(text)).toHtmlEscaped(); };
    QMessageBox box(QMessageBox::Warning, QObject::tr("Run the inputs script?"),
                    QObject::tr("The recording would run this Python function on the model:"), QMessageBox::Cancel, parent);
    box.setObjectName(QStringLiteral("inputsScriptConsentDialog"));
    const QString where = file.isEmpty()
                              ? QObject::tr("<p>A function of an installed module: Python finds its file.</p>")
                              : QObject::tr("<p><code>%1</code><br>SHA-256 <code>%2</code></p>").arg(shown(file), sha256);
    box.setInformativeText(QObject::tr("<p><code>%1</code></p>%2<p>The recording worker imports it with your permissions "
                                       "and calls it with the model. Run it only if you trust it; otherwise the "
                                       "recording does not start. dimscope asks again at each recording, and the "
                                       "worker refuses the file if it changes meanwhile.</p>")
                               .arg(shown(reference), where));
    QPushButton *run = box.addButton(QObject::tr("Run the Script"), QMessageBox::AcceptRole);
    run->setObjectName(QStringLiteral("runInputsScriptButton"));
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    return box.clickedButton() == run;
}

} // namespace dimscope
