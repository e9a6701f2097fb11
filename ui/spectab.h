// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "spec/specdialect.h"

#include <QWidget>

#include <functional>

class QComboBox;
class QPlainTextEdit;
class QPushButton;

namespace dimscope {

class ElidedLabel;
class MessageBanner;
class ProjectDocument;
class PythonHighlighter;

// The Spec tab: the export the document runs, as the Python script SpecScript writes in
// the chosen dialect (docs/gui.md, "Spec tab"), read-only and highlighted, with Copy and
// Save as .py…. It follows every change of the constraints (edits, undo, redo), the
// model, the export options and the export runtime's torch version; while the tab is
// hidden it only notes that the text is stale and writes it when shown.
class SpecTab : public QWidget
{
    Q_OBJECT
public:
    using SavePathHook = std::function<QString(const QString &suggested)>;

    SpecTab(ProjectDocument *document, MessageBanner *banner, QWidget *parent = nullptr);

    QString text() const;
    SpecDialect dialect() const;
    void setDialect(SpecDialect dialect);
    // The export runtime's torch (the worker's hello answer); empty: not known.
    void setTorchVersion(const QString &version);
    // Tests answer the save dialog with this instead (the dialog asks before it
    // overwrites; the hook's answer is taken as confirmed).
    void setSavePathHook(SavePathHook hook) { m_savePathHook = std::move(hook); }

    void copy();
    void saveAs();
    // Writes the text to `path` atomically (AtomicFile: every byte checked before the rename); false with *error naming the file.
    bool saveTo(const QString &path, QString *error) const;

signals:
    void textChanged();

protected:
    void showEvent(QShowEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void refreshLater();
    void refresh();
    QString programFileName() const;

    ProjectDocument *m_document;
    MessageBanner *m_banner;
    QComboBox *m_dialect;
    QPlainTextEdit *m_text;
    QPushButton *m_copy;
    QPushButton *m_save;
    ElidedLabel *m_summary;
    PythonHighlighter *m_highlighter;
    QString m_torchVersion;
    SavePathHook m_savePathHook;
    bool m_stale = true;
};

} // namespace dimscope
