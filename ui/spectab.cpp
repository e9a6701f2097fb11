// SPDX-License-Identifier: GPL-3.0-or-later
#include "spectab.h"

#include "document/projectdocument.h"
#include "elidedlabel.h"
#include "messagebanner.h"
#include "pythonhighlighter.h"
#include "spec/specscript.h"
#include "util/atomicfile.h"

#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QVBoxLayout>

namespace dimscope {

SpecTab::SpecTab(ProjectDocument *document, MessageBanner *banner, QWidget *parent)
    : QWidget(parent), m_document(document), m_banner(banner), m_dialect(new QComboBox(this)),
      m_text(new QPlainTextEdit(this)), m_copy(new QPushButton(tr("Copy"), this)),
      m_save(new QPushButton(tr("Save as .py…"), this)),
      m_summary(new ElidedLabel(Qt::ElideRight, this))
{
    setObjectName(QStringLiteral("specTab"));
    m_dialect->setObjectName(QStringLiteral("specDialectCombo"));
    m_text->setObjectName(QStringLiteral("specText"));
    m_copy->setObjectName(QStringLiteral("specCopyButton"));
    m_save->setObjectName(QStringLiteral("specSaveButton"));
    m_summary->setObjectName(QStringLiteral("specSummary"));
    for (SpecDialect d : SpecDialects::all())
        m_dialect->addItem(SpecDialects::label(d), SpecDialects::name(d));
    m_dialect->setToolTip(tr("How the script writes the dynamic_shapes; each dialect exports the same symbolic dims "
                             "(docs/spec-format.md says where they differ)"));
    m_copy->setToolTip(tr("Copy the script to the clipboard"));
    m_save->setToolTip(tr("Save the script as a Python file"));
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_highlighter = new PythonHighlighter(m_text->document());

    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Dialect:"), this));
    bar->addWidget(m_dialect);
    bar->addWidget(m_summary, 1);
    bar->addWidget(m_copy);
    bar->addWidget(m_save);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_text, 1);

    connect(m_dialect, &QComboBox::currentIndexChanged, this, &SpecTab::refreshLater);
    connect(m_copy, &QPushButton::clicked, this, &SpecTab::copy);
    connect(m_save, &QPushButton::clicked, this, &SpecTab::saveAs);
    // constraintsChanged comes with every edit, undo and redo (the undo commands apply
    // the set through the document).
    for (auto signal : {&ProjectDocument::captureChanged, &ProjectDocument::constraintsChanged,
                        &ProjectDocument::modelRefChanged, &ProjectDocument::exportOptionsChanged,
                        &ProjectDocument::projectPathChanged})
        connect(m_document, signal, this, &SpecTab::refreshLater);
    refreshLater();
}

QString SpecTab::text() const { return m_text->toPlainText(); }

SpecDialect SpecTab::dialect() const
{
    return SpecDialects::fromName(m_dialect->currentData().toString()).value_or(SpecDialect::NamedDims);
}

void SpecTab::setDialect(SpecDialect dialect) { m_dialect->setCurrentIndex(m_dialect->findData(SpecDialects::name(dialect))); }

void SpecTab::setTorchVersion(const QString &version)
{
    if (version == m_torchVersion)
        return;
    m_torchVersion = version;
    refreshLater();
}

void SpecTab::refreshLater()
{
    m_stale = true;
    if (isVisible())
        refresh();
}

void SpecTab::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_stale)
        refresh();
}

void SpecTab::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        m_highlighter->updateColours(palette());
}

QString SpecTab::programFileName() const
{
    const QString base = m_document->projectPath().isEmpty() ? m_document->capturePath() : m_document->projectPath();
    return QFileInfo(base).completeBaseName() + QStringLiteral(".pt2");
}

void SpecTab::refresh()
{
    m_stale = false;
    const bool have = m_document->hasCapture();
    m_copy->setEnabled(have);
    m_save->setEnabled(have);
    if (!have) {
        m_text->clear();
        m_summary->setFullText(QString());
        emit textChanged();
        return;
    }
    SpecScriptOptions o;
    o.dialect = dialect();
    o.capturePath = QFileInfo(m_document->capturePath()).absoluteFilePath();
    o.modelReference = m_document->modelRef();
    o.exampleCall = m_document->exportOptions().exampleCall;
    o.strict = m_document->exportOptions().strict;
    o.device = m_document->exportOptions().device;
    o.programPath = programFileName();
    o.torchVersion = m_torchVersion;
    const QString script = SpecScript::generate(m_document->capture(), m_document->constraints(), o);
    if (script == m_text->toPlainText())
        return;
    // Keep the reader's place: an edit changes a line or two, not where they were.
    const int scroll = m_text->verticalScrollBar()->value();
    m_text->setPlainText(script);
    m_text->verticalScrollBar()->setValue(scroll);
    m_summary->setFullText(m_torchVersion.isEmpty() ? tr("for any torch (the export runtime has not reported its version yet)")
                                                : tr("for torch %1, the export runtime").arg(m_torchVersion));
    emit textChanged();
}

void SpecTab::copy()
{
    if (m_stale)
        refresh();
    const QString script = text();
    QGuiApplication::clipboard()->setText(script);
    m_banner->showMessage(MessageBanner::Kind::Info,
                          tr("Spec (%1) copied to the clipboard as Python.").arg(SpecDialects::label(dialect())));
}

void SpecTab::saveAs()
{
    if (m_stale)
        refresh();
    const QFileInfo base(m_document->projectPath().isEmpty() ? m_document->capturePath() : m_document->projectPath());
    const QString suggested = base.absolutePath() + QLatin1Char('/') + base.completeBaseName() + QStringLiteral("_export.py");
    // The dialog adds ".py" to a name without a suffix before it asks whether to replace
    // an existing file (QFileDialog's default), so nothing is replaced unasked.
    QString path;
    if (m_savePathHook) {
        path = m_savePathHook(suggested);
    } else {
        QFileDialog dialog(this, tr("Save the Spec as Python"), suggested, tr("Python files (*.py)"));
        dialog.setObjectName(QStringLiteral("specSaveDialog"));
        dialog.setAcceptMode(QFileDialog::AcceptSave);
        dialog.setDefaultSuffix(QStringLiteral("py"));
        if (dialog.exec() == QDialog::Accepted)
            path = dialog.selectedFiles().value(0);
    }
    if (path.isEmpty())
        return;
    QString error;
    if (!saveTo(path, &error)) {
        m_banner->showMessage(MessageBanner::Kind::Error, tr("Cannot save the spec: %1").arg(error));
        return;
    }
    m_banner->showMessage(MessageBanner::Kind::Info, tr("Spec saved to %1").arg(QDir::toNativeSeparators(path)));
}

bool SpecTab::saveTo(const QString &path, QString *error) const
{
    // AtomicFile, the one way dimscope saves a file: every byte flushed and checked
    // before the rename (docs in core/util/atomicfile.h say why Qt's own is not enough).
    QString why;
    if (!AtomicFile::write(path, text().toUtf8(), &why)) {
        *error = QStringLiteral("%1: %2").arg(QDir::toNativeSeparators(path), why);
        return false;
    }
    return true;
}

} // namespace dimscope
