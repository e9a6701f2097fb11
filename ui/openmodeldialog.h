// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>

class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace dimscope {

// File > Open Model…: the model the export worker loads, as a Python reference
// (`package.module:callable`, `path/to/file.py:callable`) or a Hugging Face model
// folder (config.json) — or an exported .pt2 to inspect without a capture.
class OpenModelDialog : public QDialog
{
    Q_OBJECT
public:
    enum class Kind { Invalid, PythonModule, PythonFile, HuggingFaceFolder, Pt2File };

    explicit OpenModelDialog(QWidget *parent = nullptr);

    QString reference() const;
    void setReference(const QString &reference);
    Kind kind() const { return classify(reference(), nullptr); }

    // What a reference is; *why explains an Invalid one (or what it will do).
    static Kind classify(const QString &reference, QString *why);

    QLineEdit *referenceEdit() const { return m_edit; }

private:
    void validate();

    QLineEdit *m_edit;
    QLabel *m_hint;
    QDialogButtonBox *m_buttons;
};

} // namespace dimscope
