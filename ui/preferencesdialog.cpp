// SPDX-License-Identifier: GPL-3.0-or-later
#include "preferencesdialog.h"

#include "modelconsent.h"
#include "settings/settingskeys.h"
#include "themeapplier.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QToolButton>
#include <QVBoxLayout>

namespace dimscope {

PreferencesDialog::PreferencesDialog(QWidget *parent)
    : QDialog(parent), m_python(new QLineEdit(this)), m_environment(new QLabel(this)), m_theme(new QComboBox(this)),
      m_approved(new QListWidget(this)), m_revoke(new QPushButton(tr("Revoke"), this))
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
    form->addRow(tr("Projects' models\nallowed to run:"), approvedModelsBox());
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

QLayout *PreferencesDialog::approvedModelsBox()
{
    m_approved->setObjectName(QStringLiteral("approvedModelsList"));
    m_approved->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_approved->setToolTip(tr("Each project's model you allowed to run: the file (with its content's SHA-256) "
                              "or module, and the project. A changed file or a moved project asks again."));
    m_approved->setMaximumHeight(m_approved->fontMetrics().height() * 6);
    m_revoke->setObjectName(QStringLiteral("revokeModelButton"));
    m_revoke->setToolTip(tr("Forget the selected approvals: the next export of their project asks again."));
    m_revoke->setEnabled(false);
    connect(m_approved, &QListWidget::itemSelectionChanged, this,
            [this] { m_revoke->setEnabled(!m_approved->selectedItems().isEmpty()); });
    connect(m_revoke, &QPushButton::clicked, this, [this] {
        for (QListWidgetItem *item : m_approved->selectedItems()) {
            m_revoked << item->data(Qt::UserRole).toString();
            delete item;
        }
    });
    auto *box = new QHBoxLayout;
    box->addWidget(m_approved, 1);
    box->addWidget(m_revoke, 0, Qt::AlignTop);
    return box;
}

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
    m_approved->clear();
    m_revoked.clear();
    for (const ModelConsent::Approval &approval : ModelConsent::approvals()) {
        auto *item = new QListWidgetItem(approval.describe(), m_approved);
        item->setData(Qt::UserRole, approval.entry);
        item->setToolTip(approval.describe());
    }
}

void PreferencesDialog::store()
{
    QSettings().setValue(settings::PythonInterpreter, pythonInterpreter());
    ThemeSetting::write(theme());
    ThemeApplier::apply(theme());
    ModelConsent::revoke(m_revoked);
    m_revoked.clear();
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
