// SPDX-License-Identifier: GPL-3.0-or-later
#include "openmodeldialog.h"

#include "warningcolour.h"
#include "project/modelreference.h"
#include "settings/settingskeys.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QVBoxLayout>

namespace dimscope {

OpenModelDialog::OpenModelDialog(QWidget *parent)
    : QDialog(parent), m_edit(new QLineEdit(this)), m_hint(new QLabel(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("Open Model"));
    m_edit->setObjectName(QStringLiteral("modelReference"));
    m_edit->setPlaceholderText(tr("package.module:make_model, path/to/model.py:Model, a model folder, or a .pt2"));
    m_edit->setClearButtonEnabled(true);
    m_hint->setObjectName(QStringLiteral("modelReferenceHint"));
    m_hint->setWordWrap(true);

    auto browse = [this](const QString &text, auto pick) {
        auto *b = new QPushButton(text, this);
        connect(b, &QPushButton::clicked, this, pick);
        return b;
    };
    auto folder = [] { return QSettings().value(settings::LastModelFolder).toString(); };
    auto remember = [](const QString &path) { QSettings().setValue(settings::LastModelFolder, QFileInfo(path).absolutePath()); };
    QPushButton *pyFile = browse(tr("Python file…"), [this, folder, remember] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Python file defining the model"), folder(),
                                                          tr("Python (*.py)"));
        if (path.isEmpty())
            return;
        remember(path);
        // The callable is the user's to name; select the placeholder so typing replaces it.
        m_edit->setText(path + QStringLiteral(":make_model"));
        m_edit->setSelection(path.size() + 1, 10);
        m_edit->setFocus();
    });
    QPushButton *hfDir = browse(tr("Model folder…"), [this, folder, remember] {
        const QString path = QFileDialog::getExistingDirectory(this, tr("Hugging Face model folder"), folder());
        if (!path.isEmpty()) {
            remember(path + QStringLiteral("/."));
            m_edit->setText(path);
        }
    });
    QPushButton *pt2 = browse(tr("Exported .pt2…"), [this, folder, remember] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Exported program"), folder(),
                                                          tr("Exported programs (*.pt2);;All files (*)"));
        if (!path.isEmpty()) {
            remember(path);
            m_edit->setText(path);
        }
    });
    auto *row = new QHBoxLayout;
    row->addWidget(pyFile);
    row->addWidget(hfDir);
    row->addWidget(pt2);
    row->addStretch(1);

    connect(m_edit, &QLineEdit::textChanged, this, &OpenModelDialog::validate);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("Model reference:"), this));
    layout->addWidget(m_edit);
    layout->addLayout(row);
    layout->addWidget(m_hint);
    layout->addWidget(m_buttons);
    resize(560, sizeHint().height());
    validate();
}

QString OpenModelDialog::reference() const { return m_edit->text().trimmed(); }

void OpenModelDialog::setReference(const QString &reference) { m_edit->setText(reference); }

OpenModelDialog::Kind OpenModelDialog::classify(const QString &reference, QString *why)
{
    auto say = [why](const QString &text) {
        if (why)
            *why = text;
    };
    const QString ref = reference.trimmed();
    if (ref.isEmpty()) {
        say(tr("Enter a model reference."));
        return Kind::Invalid;
    }
    const QString disguised = ModelReference::disguise(ref);
    if (!disguised.isEmpty()) {
        say(disguised + QLatin1Char('.'));
        return Kind::Invalid;
    }
    const QFileInfo info(ref);
    if (info.isDir()) {
        if (!QFileInfo(QDir(ref).filePath(QStringLiteral("config.json"))).isFile()) {
            say(tr("%1 has no config.json: not a Hugging Face model folder.").arg(ref));
            return Kind::Invalid;
        }
        say(tr("Hugging Face model folder: the worker loads it with transformers' from_pretrained."));
        return Kind::HuggingFaceFolder;
    }
    if (info.isFile() && info.suffix().compare(QLatin1String("pt2"), Qt::CaseInsensitive) == 0) {
        say(tr("Exported program: shown with its inputs and symbolic sizes, no capture needed."));
        return Kind::Pt2File;
    }
    const int colon = ref.lastIndexOf(QLatin1Char(':'));
    if (colon <= 0 || colon == ref.size() - 1) {
        say(tr("Write module:callable, file.py:callable, a model folder or a .pt2 file."));
        return Kind::Invalid;
    }
    const QString target = ref.left(colon);
    const QString callable = ref.mid(colon + 1);
    static const QRegularExpression dotted(QStringLiteral("^[A-Za-z_]\\w*(\\.[A-Za-z_]\\w*)*$"));
    if (!dotted.match(callable).hasMatch()) {
        say(tr("'%1' is not a Python name (dotted names like Factory.build are fine).").arg(callable));
        return Kind::Invalid;
    }
    if (target.endsWith(QLatin1String(".py"))) {
        if (!QFileInfo(target).isFile()) {
            say(tr("%1: no such file.").arg(target));
            return Kind::Invalid;
        }
        say(tr("Python file: the worker runs %1 and calls %2().").arg(QFileInfo(target).fileName(), callable));
        return Kind::PythonFile;
    }
    if (!dotted.match(target).hasMatch()) {
        say(tr("'%1' is neither a module name nor a .py file.").arg(target));
        return Kind::Invalid;
    }
    say(tr("Python module: the worker imports %1 and calls %2().").arg(target, callable));
    return Kind::PythonModule;
}

void OpenModelDialog::validate()
{
    QString why;
    const Kind k = classify(reference(), &why);
    m_hint->setText(why);
    WarningColour::apply(m_hint, k == Kind::Invalid && !reference().isEmpty());
    m_buttons->button(QDialogButtonBox::Open)->setEnabled(k != Kind::Invalid);
}

} // namespace dimscope
