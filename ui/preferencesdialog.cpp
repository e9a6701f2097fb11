// SPDX-License-Identifier: GPL-3.0-or-later
#include "preferencesdialog.h"

#include "settingskeys.h"
#include "themeapplier.h"

#include <QComboBox>
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
    : QDialog(parent), m_python(new QLineEdit(this)), m_environment(new QLabel(this)), m_theme(new QComboBox(this))
{
    setObjectName(QStringLiteral("preferencesDialog"));
    setWindowTitle(tr("Preferences"));
    m_python->setObjectName(QStringLiteral("pythonInterpreter"));
    m_python->setPlaceholderText(tr("automatic (DIMSCOPE_PYTHON, then the bundled torch runtime)"));
    // Wide enough for the placeholder, which says what an empty field means.
    m_python->setMinimumWidth(m_python->fontMetrics().horizontalAdvance(m_python->placeholderText()) + 24);
    auto *browse = new QToolButton(this);
    browse->setText(tr("…"));
    browse->setToolTip(tr("Choose the Python interpreter"));
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
    m_environment->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_theme->setObjectName(QStringLiteral("themeChoice"));
    m_theme->addItem(tr("System (follow the desktop)"), int(Theme::System));
    m_theme->addItem(tr("Light"), int(Theme::Light));
    m_theme->addItem(tr("Dark"), int(Theme::Dark));
    connect(m_theme, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] { ThemeApplier::apply(theme()); });
    auto *form = new QFormLayout;
    // Labels left of their fields on every platform; the environment text wraps.
    form->setRowWrapPolicy(QFormLayout::DontWrapRows);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(tr("Python interpreter:"), row);
    form->addRow(tr("Detected:"), m_environment);
    form->addRow(tr("Theme:"), m_theme);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addStretch(1);
    layout->addWidget(buttons);
    resize(qMax(560, sizeHint().width()), sizeHint().height());
    fitHeightToText();
}

PreferencesDialog::~PreferencesDialog() = default;

QString PreferencesDialog::pythonInterpreter() const { return m_python->text().trimmed(); }

void PreferencesDialog::setPythonInterpreter(const QString &path) { m_python->setText(path); }

void PreferencesDialog::setEnvironmentDescription(const QString &text)
{
    m_environment->setText(text);
    fitHeightToText();
}

Theme PreferencesDialog::theme() const { return Theme(m_theme->currentData().toInt()); }

void PreferencesDialog::setTheme(Theme theme) { m_theme->setCurrentIndex(m_theme->findData(int(theme))); }

void PreferencesDialog::load()
{
    setPythonInterpreter(QSettings().value(settings::PythonInterpreter).toString());
    m_themeOnOpen = ThemeSetting::saved();
    const QSignalBlocker noPreview(m_theme); // the saved theme is applied already
    setTheme(m_themeOnOpen);
}

void PreferencesDialog::store()
{
    QSettings().setValue(settings::PythonInterpreter, pythonInterpreter());
    ThemeSetting::write(theme());
    ThemeApplier::apply(theme());
}

void PreferencesDialog::reject()
{
    if (theme() != m_themeOnOpen)
        ThemeApplier::apply(ThemeSetting::effective());
    QDialog::reject();
}

void PreferencesDialog::fitHeightToText()
{
    layout()->activate();
    const int needed = layout()->hasHeightForWidth() ? layout()->totalHeightForWidth(width()) : layout()->totalSizeHint().height();
    setMinimumHeight(needed);
    if (height() < needed)
        resize(width(), needed);
}

void PreferencesDialog::resizeEvent(QResizeEvent *event)
{
    QDialog::resizeEvent(event);
    fitHeightToText();
}

} // namespace dimscope
