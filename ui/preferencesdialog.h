// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>

class QLabel;
class QLineEdit;

namespace dimscope {

// Edit > Preferences: the Python interpreter the export worker runs in (empty: the
// one dimscope finds itself, see scripts/torch-python and DIMSCOPE_PYTHON).
class PreferencesDialog : public QDialog
{
    Q_OBJECT
public:
    explicit PreferencesDialog(QWidget *parent = nullptr);
    ~PreferencesDialog() override;

    QString pythonInterpreter() const;
    void setPythonInterpreter(const QString &path);
    // Detected environment, when the worker has reported it ("torch 2.6.0, CUDA: none").
    void setEnvironmentDescription(const QString &text);

    void load();  // from QSettings
    void store(); // to QSettings

private:
    QLineEdit *m_python;
    QLabel *m_environment;
};

} // namespace dimscope
