// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelconsent.h"

#include "settingskeys.h"

#include <QDir>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStringList>

namespace dimscope {

QString ModelConsent::key(const QString &projectPath, const QString &modelRef)
{
    // The place: a project copied elsewhere (a download, a colleague's folder) asks again.
    const QString place = QFileInfo(projectPath).canonicalFilePath();
    return (place.isEmpty() ? QFileInfo(projectPath).absoluteFilePath() : place) + QLatin1Char('\n') + modelRef;
}

bool ModelConsent::needsApproval(const QString &projectPath, const QString &modelRef)
{
    if (modelRef.isEmpty() || modelRef.startsWith(QLatin1String("dimscope.")))
        return false;
    return !QSettings().value(settings::ApprovedProjectModels).toStringList().contains(key(projectPath, modelRef));
}

void ModelConsent::approve(const QString &projectPath, const QString &modelRef)
{
    QSettings settings;
    QStringList approved = settings.value(settings::ApprovedProjectModels).toStringList();
    const QString k = key(projectPath, modelRef);
    if (!approved.contains(k))
        approved << k;
    settings.setValue(settings::ApprovedProjectModels, approved);
}

bool ModelConsent::ask(QWidget *parent, const QString &projectPath, const QString &modelRef)
{
    QMessageBox box(QMessageBox::Warning, QObject::tr("Run the project's model?"),
                    QObject::tr("Exporting runs Python code that this project names:"), QMessageBox::Cancel, parent);
    box.setObjectName(QStringLiteral("modelConsentDialog"));
    box.setInformativeText(QObject::tr("<p><code>%1</code></p><p>from the project <code>%2</code>.</p>"
                                       "<p>The export worker imports and calls it with your Python interpreter, "
                                       "with your permissions. Run it only if you trust where the project "
                                       "comes from. dimscope asks once for this project in this place.</p>")
                               .arg(modelRef.toHtmlEscaped(), QDir::toNativeSeparators(projectPath).toHtmlEscaped()));
    QPushButton *run = box.addButton(QObject::tr("Run the Model"), QMessageBox::AcceptRole);
    run->setObjectName(QStringLiteral("runModelButton"));
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    if (box.clickedButton() != run)
        return false;
    approve(projectPath, modelRef);
    return true;
}

} // namespace dimscope
