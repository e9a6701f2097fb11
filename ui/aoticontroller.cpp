// SPDX-License-Identifier: GPL-3.0-or-later
#include "aoticontroller.h"

#include "document/exportresults.h"
#include "document/projectdocument.h"
#include "export/aotireport.h"
#include "export/aotirequest.h"
#include "export/exportclient.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace dimscope {

AotiController::AotiController(ProjectDocument *document, ExportClient *exportClient, QWidget *window)
    : QObject(window), m_document(document), m_exportClient(exportClient), m_window(window),
      m_compile(new QAction(tr("Compile with &AOTInductor…"), this)), m_cancel(new QAction(tr("Cancel Compile"), this))
{
    m_compile->setObjectName(QStringLiteral("actionCompileAoti"));
    m_cancel->setObjectName(QStringLiteral("actionCancelAoti"));
    m_compile->setToolTip(tr("Compile the exported program with AOTInductor and check the package against it on "
                             "the captured calls, in a new interpreter"));
    connect(m_compile, &QAction::triggered, this, [this] { compile(); });
    connect(m_cancel, &QAction::triggered, this, &AotiController::cancel);
    connect(document->exportResults(), &ExportResults::changed, this, &AotiController::updateActions);
    connect(document, &ProjectDocument::captureChanged, this, &AotiController::updateActions);
    updateActions();
}

AotiController::~AotiController() = default;

QString AotiController::programPath() const
{
    if (!m_document || !m_document->exportResults()->hasOutcome())
        return {};
    const PhasedExportOutcome &outcome = m_document->exportResults()->outcome();
    return outcome.programs.isEmpty() ? QString() : outcome.programs.first().result.output;
}

void AotiController::updateActions()
{
    const bool ready = m_document && m_document->hasCapture() && !programPath().isEmpty()
                       && QFileInfo(programPath()).isFile();
    m_compile->setEnabled(ready && !isRunning());
    m_compile->setStatusTip(ready ? m_compile->toolTip() : tr("Export a program first"));
    m_cancel->setEnabled(isRunning());
}

void AotiController::compile(const QString &device)
{
    if (isRunning() || !m_compile->isEnabled())
        return;
    AotiRequest request;
    request.program = programPath();
    request.capture = m_document->capturePath();
    request.model = m_document->modelRef();
    request.device = device;
    const QString output = AotiRequest::defaultOutput(request.program);
    if (QFileInfo::exists(output)) {
        const auto answer = QMessageBox::question(m_window, tr("Compile with AOTInductor"),
                                                  tr("%1 exists. Replace it?").arg(QFileInfo(output).fileName()));
        if (answer != QMessageBox::Yes)
            return;
        request.overwrite = true;
    }
    if (!m_client) {
        m_client = new ExportClient(this);
        connect(m_client, &ExportClient::progress, this,
                [this](int, const QString &, const QString &text, double) { emit message(text); });
        connect(m_client, &ExportClient::finished, this, &AotiController::onFinished);
    }
    if (m_exportClient)
        m_client->setRuntime(m_exportClient->runtime());
    m_requestId = m_client->request(QStringLiteral("aoti"), request.params());
    emit message(tr("Compiling %1 with AOTInductor…").arg(QFileInfo(request.program).fileName()));
    updateActions();
}

void AotiController::cancel()
{
    if (m_client && isRunning())
        m_client->cancel(); // fails the request: onFinished says so
}

void AotiController::onFinished(int id)
{
    if (id != m_requestId)
        return;
    m_requestId = -1;
    updateActions();
    const WorkerFailure failure = m_client->failureOf(id);
    if (failure.kind == QLatin1String("cancelled")) {
        emit message(tr("AOTInductor compile cancelled"));
        return;
    }
    if (failure.isValid()) {
        emit message(tr("AOTInductor compile failed"));
        showReport(tr("AOTInductor: failed"), failure.kind + QStringLiteral(": ") + failure.message);
        return;
    }
    const QJsonObject result = m_client->resultOf(id);
    const bool clean = AotiReport::clean(result);
    emit message(clean ? tr("AOTInductor package matches the program") : tr("AOTInductor package differs from the program"));
    showReport(clean ? tr("AOTInductor: the package matches") : tr("AOTInductor: differences"),
               AotiReport::lines(result).join(QLatin1Char('\n')));
}

void AotiController::showReport(const QString &title, const QString &text)
{
    if (!m_dialog) {
        m_dialog = new QDialog(m_window);
        m_dialog->setObjectName(QStringLiteral("aotiReportDialog"));
        auto *layout = new QVBoxLayout(m_dialog);
        m_text = new QPlainTextEdit(m_dialog);
        m_text->setObjectName(QStringLiteral("aotiReport"));
        m_text->setReadOnly(true);
        auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, m_dialog);
        connect(buttons, &QDialogButtonBox::rejected, m_dialog, &QDialog::close);
        layout->addWidget(m_text);
        layout->addWidget(buttons);
        m_dialog->resize(720, 320);
    }
    m_dialog->setWindowTitle(title);
    m_text->setPlainText(text);
    m_dialog->show();
    m_dialog->raise();
}

} // namespace dimscope
