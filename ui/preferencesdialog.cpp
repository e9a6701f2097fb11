// SPDX-License-Identifier: GPL-3.0-or-later
#include "preferencesdialog.h"

#include "settingskeys.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QToolButton>
#include <QVBoxLayout>

namespace dimscope {

PreferencesDialog::PreferencesDialog(QWidget *parent)
    : QDialog(parent), m_python(new QLineEdit(this)), m_environment(new QLabel(this))
{
    setWindowTitle(tr("Preferences"));
    m_python->setObjectName(QStringLiteral("pythonInterpreter"));
    m_python->setPlaceholderText(tr("automatic (DIMSCOPE_PYTHON, then the bundled torch runtime)"));
    auto *browse = new QToolButton(this);
    browse->setText(tr("…"));
    connect(browse, &QToolButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Python interpreter"), m_python->text());
        if (!path.isEmpty())
            m_python->setText(path);
    });
    auto *row = new QHBoxLayout;
    row->addWidget(m_python, 1);
    row->addWidget(browse);
    m_environment->setObjectName(QStringLiteral("pythonEnvironment"));
    m_environment->setText(tr("not detected yet (the export worker reports it when it starts)"));
    m_environment->setWordWrap(true);
    auto *form = new QFormLayout;
    form->addRow(tr("Python interpreter:"), row);
    form->addRow(tr("Detected:"), m_environment);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);
    resize(520, sizeHint().height());
}

PreferencesDialog::~PreferencesDialog() = default;

QString PreferencesDialog::pythonInterpreter() const { return m_python->text().trimmed(); }

void PreferencesDialog::setPythonInterpreter(const QString &path) { m_python->setText(path); }

void PreferencesDialog::setEnvironmentDescription(const QString &text) { m_environment->setText(text); }

void PreferencesDialog::load() { setPythonInterpreter(QSettings().value(settings::PythonInterpreter).toString()); }

void PreferencesDialog::store() { QSettings().setValue(settings::PythonInterpreter, pythonInterpreter()); }

} // namespace dimscope
