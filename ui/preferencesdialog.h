// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "settings/themesetting.h"

#include <QDialog>

class QComboBox;
class QLabel;
class QLayout;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace dimscope {

// Edit > Preferences: the Python interpreter the export worker runs in (empty: the
// one dimscope finds itself, see scripts/torch-python and DIMSCOPE_PYTHON), the
// colour theme, and the projects' models the user allowed to run (ModelConsent), with
// Revoke. A theme picked here is shown at once; Cancel puts the previous back, and
// keeps the approvals revoked in the dialog.
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

    // The approved models listed (objectName "approvedModelsList"), and Revoke
    // (objectName "revokeModelButton"), which takes the selected ones off the list;
    // store() forgets them.
    QListWidget *approvedModels() const { return m_approved; }
    QPushButton *revokeButton() const { return m_revoke; }

    void reject() override;

private:
    QLayout *approvedModelsBox();
    // The height the wrapped labels need at the current width, as the minimum: a long
    // environment text (CUDA's reason) grows the dialog instead of being cut.
    void fitHeightToText();
    void resizeEvent(QResizeEvent *event) override;

    QLineEdit *m_python;
    QLabel *m_environment;
    QComboBox *m_theme;
    QListWidget *m_approved;
    QPushButton *m_revoke;
    QStringList m_revoked; // entries of ModelConsent::Approval taken off the list
    Theme m_themeOnOpen = Theme::System;
};

} // namespace dimscope
