// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "themesetting.h"

#include <QDialog>

class QComboBox;
class QLabel;
class QLineEdit;

namespace dimscope {

// Edit > Preferences: the Python interpreter the export worker runs in (empty: the
// one dimscope finds itself, see scripts/torch-python and DIMSCOPE_PYTHON), and the
// colour theme. A theme picked here is shown at once; Cancel puts the previous back.
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
    Theme theme() const;
    void setTheme(Theme theme);

    void load();  // from QSettings
    void store(); // to QSettings

    void reject() override;

private:
    // The height the wrapped labels need at the current width, as the minimum: a long
    // environment text (CUDA's reason) grows the dialog instead of being cut.
    void fitHeightToText();
    void resizeEvent(QResizeEvent *event) override;

    QLineEdit *m_python;
    QLabel *m_environment;
    QComboBox *m_theme;
    Theme m_themeOnOpen = Theme::System;
};

} // namespace dimscope
