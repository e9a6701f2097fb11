// SPDX-License-Identifier: GPL-3.0-or-later
#include "newrecordingdialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>

namespace dimscope {

namespace {

QPushButton *namedButton(const QString &objectName, const QString &text, QWidget *parent)
{
    auto *b = new QPushButton(text, parent);
    b->setObjectName(objectName);
    b->setAutoDefault(false);
    return b;
}

QHBoxLayout *row(QWidget *a, QWidget *b, QWidget *c = nullptr)
{
    auto *layout = new QHBoxLayout;
    layout->addWidget(a, 1);
    layout->addWidget(b);
    if (c)
        layout->addWidget(c);
    return layout;
}

} // namespace

NewRecordingDialog::NewRecordingDialog(QWidget *parent)
    : QDialog(parent), m_model(new QLineEdit(this)), m_modelFolder(namedButton(QStringLiteral("recordingModelFolder"), tr("Folder…"), this)),
      m_projectModel(namedButton(QStringLiteral("recordingProjectModel"), tr("Project's Model"), this)),
      m_tokenizerLabel(new QLabel(tr("Tokenizer:"), this)), m_tokenizer(new QLineEdit(this)),
      m_tokenizerFolder(namedButton(QStringLiteral("recordingTokenizerFolder"), tr("Folder…"), this)), m_earlier(new QLabel(this)),
      m_maxNewTokens(new QSpinBox(this)), m_greedy(new QRadioButton(tr("Greedy"), this)),
      m_beam(new QRadioButton(tr("Beam search"), this)), m_beams(new QSpinBox(this)), m_calls(new QSpinBox(this)),
      m_capture(new QLineEdit(this)), m_project(new QLineEdit(this)), m_error(new QLabel(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Cancel, this))
{
    setObjectName(QStringLiteral("newRecordingDialog"));
    setWindowTitle(tr("New Recording"));
    m_record = m_buttons->addButton(tr("Record"), QDialogButtonBox::AcceptRole);
    m_record->setObjectName(QStringLiteral("recordingRecord"));
    m_record->setDefault(true);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &NewRecordingDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    m_error->setObjectName(QStringLiteral("recordingError"));
    m_error->setTextFormat(Qt::PlainText); // paths and prompts are the user's text
    m_error->setWordWrap(true);
    m_error->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // a long path never widens the dialog
    m_error->setStyleSheet(QStringLiteral("color: palette(link)"));

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(createModelGroup());
    layout->addWidget(createInputsGroup(), 1);
    layout->addWidget(createSettingsGroup());
    layout->addWidget(createOutputsGroup());
    layout->addWidget(m_error);
    layout->addWidget(m_buttons);
    addPromptBox();
    inputsModeChanged();
    modelChanged();
    resize(700, 560); // fits a 1366x768 laptop at 125 % (1093x614), as every dialog must
}

QWidget *NewRecordingDialog::createModelGroup()
{
    auto *group = new QGroupBox(tr("Model"), this);
    m_model->setObjectName(QStringLiteral("recordingModel"));
    m_model->setPlaceholderText(tr("a Hugging Face model folder, file.py:make or package.module:make"));
    m_model->setToolTip(tr("A folder with config.json and weights (its tokenizer and generation_config are used), "
                           "or a factory returning a model with generate(). trust_remote_code stays off: a folder "
                           "whose auto_map names code of its own asks first, naming the files."));
    m_projectModel->setEnabled(false);
    m_projectModel->setToolTip(tr("The open project's model"));
    m_tokenizer->setObjectName(QStringLiteral("recordingTokenizer"));
    m_tokenizer->setPlaceholderText(tr("the tokenizer folder a factory model uses"));
    connect(m_model, &QLineEdit::textChanged, this, &NewRecordingDialog::modelChanged);
    connect(m_tokenizer, &QLineEdit::textChanged, this, &NewRecordingDialog::validate);
    connect(m_modelFolder, &QPushButton::clicked, this, [this] { browseFolder(m_model, tr("Model Folder")); });
    connect(m_tokenizerFolder, &QPushButton::clicked, this, [this] { browseFolder(m_tokenizer, tr("Tokenizer Folder")); });
    connect(m_projectModel, &QPushButton::clicked, this, [this] { m_model->setText(m_projectModelRef); });
    auto *form = new QFormLayout(group);
    form->addRow(tr("Model:"), row(m_model, m_modelFolder, m_projectModel));
    form->addRow(m_tokenizerLabel, row(m_tokenizer, m_tokenizerFolder));
    return group;
}

// Prompts (the boxes) or an inputs script that runs the model itself.
QHBoxLayout *NewRecordingDialog::createInputsModeRow(QWidget *parent)
{
    m_promptsMode = new QRadioButton(tr("Prompts"), parent);
    m_promptsMode->setObjectName(QStringLiteral("recordingInputsPrompts"));
    m_promptsMode->setToolTip(tr("One box is one batch, one generate() call; one prompt a line"));
    m_promptsMode->setChecked(true);
    m_scriptMode = new QRadioButton(tr("Inputs script:"), parent);
    m_scriptMode->setObjectName(QStringLiteral("recordingInputsScriptMode"));
    m_scriptMode->setToolTip(tr("A function that receives the model and runs it, calls(model, processor): every forward "
                                "call it makes is recorded. It is code: dimscope asks before running it, naming the file "
                                "and its SHA-256."));
    m_script = new QLineEdit(parent);
    m_script->setObjectName(QStringLiteral("recordingInputsScript"));
    m_script->setPlaceholderText(tr("file.py:calls or package.module:calls"));
    m_scriptFile = namedButton(QStringLiteral("recordingInputsScriptFile"), tr("File…"), parent);
    connect(m_scriptMode, &QRadioButton::toggled, this, &NewRecordingDialog::inputsModeChanged);
    connect(m_script, &QLineEdit::textChanged, this, &NewRecordingDialog::validate);
    connect(m_scriptFile, &QPushButton::clicked, this, [this] {
        const QString file = QFileDialog::getOpenFileName(this, tr("Inputs Script"), QString(), tr("Python files (*.py)"));
        if (!file.isEmpty())
            m_script->setText(file + QStringLiteral(":calls"));
    });
    auto *layout = new QHBoxLayout;
    layout->addWidget(m_promptsMode);
    layout->addWidget(m_scriptMode);
    layout->addWidget(m_script, 1);
    layout->addWidget(m_scriptFile);
    return layout;
}

void NewRecordingDialog::inputsModeChanged()
{
    const bool script = m_scriptMode->isChecked();
    m_script->setEnabled(script);
    m_scriptFile->setEnabled(script);
    m_promptsArea->setVisible(!script);
    m_scriptHint->setVisible(script);
    // The script runs the model as it likes: generate()'s settings are not used.
    m_maxNewTokens->setEnabled(!script);
    m_greedy->setEnabled(!script);
    m_beam->setEnabled(!script);
    m_beams->setEnabled(!script && m_beam->isChecked());
    validate();
}

QWidget *NewRecordingDialog::createInputsGroup()
{
    auto *group = new QGroupBox(tr("Inputs"), this);
    m_earlier->setObjectName(QStringLiteral("recordingEarlierCalls"));
    m_earlier->setTextFormat(Qt::PlainText); // prompts read back from the capture
    m_earlier->setWordWrap(true);
    m_earlier->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_earlier->hide();
    auto *boxes = new QWidget(group);
    boxes->setObjectName(QStringLiteral("recordingBoxes"));
    m_boxLayout = new QVBoxLayout(boxes);
    m_boxLayout->setContentsMargins(0, 0, 0, 0);
    m_boxLayout->addStretch(1);
    auto *scroll = new QScrollArea(group);
    scroll->setWidgetResizable(true);
    scroll->setWidget(boxes);
    scroll->setFrameShape(QFrame::NoFrame);
    auto *add = namedButton(QStringLiteral("recordingAddBox"), tr("Add Prompt Box"), group);
    add->setToolTip(tr("Another generate() call"));
    connect(add, &QPushButton::clicked, this, &NewRecordingDialog::addPromptBox);
    m_promptsArea = new QWidget(group);
    auto *prompts = new QVBoxLayout(m_promptsArea);
    prompts->setContentsMargins(0, 0, 0, 0);
    prompts->addWidget(scroll, 1);
    prompts->addWidget(add, 0, Qt::AlignLeft);
    m_scriptHint = new QLabel(tr("The function is called as calls(model, processor) (or calls(model)) with the loaded "
                                 "model, and every forward call it makes is recorded; what it returns is ignored. "
                                 "dimscope asks before running it, naming the file and its SHA-256."),
                              group);
    m_scriptHint->setObjectName(QStringLiteral("recordingInputsScriptHint"));
    m_scriptHint->setWordWrap(true);
    m_scriptHint->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto *layout = new QVBoxLayout(group);
    layout->addLayout(createInputsModeRow(group));
    layout->addWidget(m_scriptHint);
    layout->addWidget(m_earlier);
    layout->addWidget(m_promptsArea, 1);
    layout->addStretch(0); // takes the height when the boxes are hidden: the rows stay on top
    return group;
}

QWidget *NewRecordingDialog::createSettingsGroup()
{
    auto *group = new QGroupBox(tr("Generation"), this);
    m_maxNewTokens->setObjectName(QStringLiteral("recordingMaxNewTokens"));
    m_maxNewTokens->setRange(1, 4096);
    m_maxNewTokens->setValue(8);
    m_greedy->setObjectName(QStringLiteral("recordingGreedy"));
    m_beam->setObjectName(QStringLiteral("recordingBeam"));
    m_greedy->setChecked(true);
    m_beams->setObjectName(QStringLiteral("recordingBeams"));
    m_beams->setRange(2, 64);
    m_beams->setEnabled(false);
    m_beams->setSuffix(tr(" beams"));
    m_calls->setObjectName(QStringLiteral("recordingCalls"));
    m_calls->setRange(0, 100000);
    m_calls->setSpecialValueText(tr("every one"));
    m_calls->setToolTip(tr("Keep the first N forward calls generate() makes"));
    connect(m_beam, &QRadioButton::toggled, this, [this](bool on) { m_beams->setEnabled(on && m_beam->isEnabled()); });
    connect(m_beam, &QRadioButton::toggled, this, &NewRecordingDialog::validate);
    auto *decoding = new QHBoxLayout;
    decoding->addWidget(m_greedy);
    decoding->addWidget(m_beam);
    decoding->addWidget(m_beams);
    decoding->addStretch(1);
    // Two rows, not three: the prompt boxes keep the height (the dialog fits 1093x614).
    auto *counts = new QHBoxLayout;
    counts->addWidget(m_maxNewTokens);
    counts->addSpacing(12);
    counts->addWidget(new QLabel(tr("Forward calls to keep:"), group));
    counts->addWidget(m_calls);
    counts->addStretch(1);
    auto *form = new QFormLayout(group);
    form->addRow(tr("Max new tokens:"), counts);
    form->addRow(tr("Decoding:"), decoding);
    return group;
}

QWidget *NewRecordingDialog::createOutputsGroup()
{
    auto *group = new QGroupBox(tr("Output"), this);
    m_capture->setObjectName(QStringLiteral("recordingCapture"));
    m_project->setObjectName(QStringLiteral("recordingProject"));
    for (QLineEdit *edit : {m_capture, m_project}) {
        connect(edit, &QLineEdit::textEdited, this, [this] { m_outputsEdited = true; });
        connect(edit, &QLineEdit::textChanged, this, &NewRecordingDialog::validate);
    }
    auto *captureBrowse = namedButton(QStringLiteral("recordingCaptureBrowse"), tr("Choose…"), group);
    auto *projectBrowse = namedButton(QStringLiteral("recordingProjectBrowse"), tr("Choose…"), group);
    connect(captureBrowse, &QPushButton::clicked, this,
            [this] { browseSave(m_capture, tr("Capture"), tr("Captures (*.safetensors)")); });
    connect(projectBrowse, &QPushButton::clicked, this,
            [this] { browseSave(m_project, tr("Project"), tr("dimscope projects (*.dimscope)")); });
    auto *form = new QFormLayout(group);
    form->addRow(tr("Capture:"), row(m_capture, captureBrowse));
    form->addRow(tr("Project:"), row(m_project, projectBrowse));
    return group;
}

void NewRecordingDialog::addPromptBox()
{
    Box box;
    box.group = new QGroupBox(this);
    box.prompts = new QPlainTextEdit(box.group);
    box.prompts->setPlaceholderText(tr("one prompt a line"));
    box.prompts->setTabChangesFocus(true);
    box.prompts->setFixedHeight(box.prompts->fontMetrics().lineSpacing() * 4 + 12);
    box.images = new QPlainTextEdit(box.group);
    box.images->setPlaceholderText(tr("one image file a line, one per prompt"));
    box.images->setTabChangesFocus(true);
    box.images->setFixedHeight(box.prompts->height());
    box.addImage = new QPushButton(tr("Add Image…"), box.group);
    box.addImage->setAutoDefault(false);
    box.audio = new QPlainTextEdit(box.group);
    box.audio->setPlaceholderText(tr("one WAV file a line, one per prompt"));
    box.audio->setToolTip(tr("A speech model hears the audio, not the prompt: a prompt names its clip, and prompts left "
                             "empty are named after the files"));
    box.audio->setTabChangesFocus(true);
    box.audio->setFixedHeight(box.prompts->height());
    box.addAudio = new QPushButton(tr("Add Audio…"), box.group);
    box.addAudio->setAutoDefault(false);
    box.remove = new QPushButton(tr("Remove"), box.group);
    box.remove->setAutoDefault(false);
    auto *buttons = new QVBoxLayout;
    buttons->addWidget(box.addImage);
    buttons->addWidget(box.addAudio);
    buttons->addWidget(box.remove);
    buttons->addStretch(1);
    auto *layout = new QHBoxLayout(box.group);
    layout->addWidget(box.prompts, 2);
    layout->addWidget(box.images, 1);
    layout->addWidget(box.audio, 1);
    layout->addLayout(buttons);
    QPlainTextEdit *images = box.images;
    QPlainTextEdit *audio = box.audio;
    QGroupBox *group = box.group;
    connect(box.prompts, &QPlainTextEdit::textChanged, this, &NewRecordingDialog::validate);
    connect(box.images, &QPlainTextEdit::textChanged, this, &NewRecordingDialog::validate);
    connect(box.audio, &QPlainTextEdit::textChanged, this, &NewRecordingDialog::validate);
    connect(box.addAudio, &QPushButton::clicked, this, [this, audio] {
        const QString file = QFileDialog::getOpenFileName(this, tr("Audio"), QString(), tr("WAV files (*.wav);;All files (*)"));
        if (!file.isEmpty())
            audio->appendPlainText(file);
    });
    connect(box.addImage, &QPushButton::clicked, this, [this, images] {
        const QString file = QFileDialog::getOpenFileName(this, tr("Image"), QString(),
                                                          tr("Images (*.png *.jpg *.jpeg *.bmp *.gif *.webp);;All files (*)"));
        if (!file.isEmpty())
            images->appendPlainText(file);
    });
    connect(box.remove, &QPushButton::clicked, this, [this, group] {
        for (int i = 0; i < m_boxes.size(); ++i) {
            if (m_boxes.at(i).group == group)
                removePromptBox(i);
        }
    });
    m_boxLayout->insertWidget(m_boxLayout->count() - 1, box.group);
    m_boxes.append(box);
    renumberBoxes();
    box.prompts->setFocus();
}

void NewRecordingDialog::removePromptBox(int index)
{
    if (index < 0 || index >= m_boxes.size())
        return;
    m_boxes.takeAt(index).group->deleteLater();
    renumberBoxes();
}

// Boxes are named by their place, after the earlier calls Record More records again:
// the errors of RecordingForm number them the same way.
void NewRecordingDialog::renumberBoxes()
{
    for (int i = 0; i < m_boxes.size(); ++i) {
        const int n = int(m_earlierBoxes.size()) + i + 1;
        const Box &box = m_boxes.at(i);
        box.group->setObjectName(QStringLiteral("promptBox%1").arg(n));
        box.group->setTitle(tr("Prompt box %1: generate() call %1").arg(n));
        box.prompts->setObjectName(QStringLiteral("promptText%1").arg(n));
        box.images->setObjectName(QStringLiteral("promptImages%1").arg(n));
        box.addImage->setObjectName(QStringLiteral("promptAddImage%1").arg(n));
        box.audio->setObjectName(QStringLiteral("promptAudio%1").arg(n));
        box.addAudio->setObjectName(QStringLiteral("promptAddAudio%1").arg(n));
        box.remove->setObjectName(QStringLiteral("promptRemove%1").arg(n));
        box.images->setVisible(m_vision);
        box.addImage->setVisible(m_vision);
        box.audio->setVisible(m_speech);
        box.addAudio->setVisible(m_speech);
    }
    validate();
}

void NewRecordingDialog::modelChanged()
{
    const RecordingForm current = form();
    const RecordingForm::ModelKind kind = current.modelKind();
    const bool factory = kind == RecordingForm::ModelKind::File || kind == RecordingForm::ModelKind::Module;
    m_tokenizerLabel->setVisible(factory);
    m_tokenizer->setVisible(factory);
    m_tokenizerFolder->setVisible(factory);
    m_vision = current.isVisionFolder();
    m_speech = current.isSpeechFolder();
    if (!m_outputsEdited && m_earlierBoxes.isEmpty()) {
        RecordingForm defaults = current;
        defaults.setDefaultOutputs();
        m_capture->setText(defaults.capturePath);
        m_project->setText(defaults.projectPath);
    }
    renumberBoxes(); // shows or hides the images and validates
}

RecordingForm NewRecordingDialog::form() const
{
    RecordingForm f;
    f.model = m_model->text();
    f.tokenizer = m_tokenizer->text();
    f.earlier = m_earlierBoxes;
    f.boxes.clear();
    for (const Box &box : m_boxes)
        f.boxes.append({box.prompts->toPlainText(), box.images->toPlainText(), box.audio->toPlainText()});
    f.useInputsScript = m_scriptMode && m_scriptMode->isChecked();
    f.inputsScript = m_script ? m_script->text() : QString();
    f.maxNewTokens = m_maxNewTokens->value();
    f.beamSearch = m_beam->isChecked();
    f.numBeams = m_beams->value();
    f.calls = m_calls->value();
    f.capturePath = m_capture->text();
    f.projectPath = m_project->text();
    return f;
}

void NewRecordingDialog::validate()
{
    if (!m_record)
        return;
    const QString error = form().error();
    m_error->setText(error);
    m_error->setToolTip(error);
    m_record->setEnabled(error.isEmpty());
}

void NewRecordingDialog::setProjectModel(const QString &reference)
{
    m_projectModelRef = reference;
    m_projectModel->setEnabled(!reference.isEmpty());
    m_projectModel->setToolTip(reference.isEmpty() ? tr("No project model is open") : reference);
}

void NewRecordingDialog::setMoreCalls(const RecordingForm &form)
{
    setWindowTitle(tr("Record More Calls"));
    m_earlierBoxes = form.earlier;
    QStringList lines;
    for (int b = 0; b < m_earlierBoxes.size(); ++b)
        lines << tr("generate() call %1: %2").arg(b + 1).arg(m_earlierBoxes.at(b).prompts.split(QLatin1Char('\n')).join(QStringLiteral(" | ")));
    m_earlier->setText(tr("Recorded again first, as before:\n%1").arg(lines.join(QLatin1Char('\n'))));
    m_earlier->show();
    m_model->setText(form.model);
    m_tokenizer->setText(form.tokenizer);
    m_maxNewTokens->setValue(form.maxNewTokens);
    (form.beamSearch ? m_beam : m_greedy)->setChecked(true);
    m_beams->setValue(form.numBeams);
    // The settings apply to every call, the earlier ones too: they stay as recorded.
    for (QWidget *w : std::initializer_list<QWidget *>{m_model, m_modelFolder, m_projectModel, m_tokenizer, m_tokenizerFolder, m_promptsMode, m_scriptMode,
                                                        m_maxNewTokens, m_greedy, m_beam, m_beams}) {
        w->setEnabled(false);
        w->setToolTip(tr("As recorded: the earlier calls are recorded again with it"));
    }
    m_capture->setText(form.capturePath);
    m_project->setText(form.projectPath);
    m_outputsEdited = true;
    renumberBoxes();
}

void NewRecordingDialog::browseFolder(QLineEdit *edit, const QString &title)
{
    const QString folder = QFileDialog::getExistingDirectory(this, title, edit->text());
    if (!folder.isEmpty())
        edit->setText(folder);
}

void NewRecordingDialog::browseSave(QLineEdit *edit, const QString &title, const QString &filter)
{
    const QString path = QFileDialog::getSaveFileName(this, title, edit->text(), filter, nullptr,
                                                      QFileDialog::DontConfirmOverwrite); // Record asks
    if (!path.isEmpty()) {
        edit->setText(path);
        m_outputsEdited = true;
    }
}

void NewRecordingDialog::accept()
{
    const RecordingForm current = form();
    if (!current.error().isEmpty())
        return;
    const QStringList existing = current.existingOutputs();
    m_replace = false;
    if (!existing.isEmpty()) {
        QMessageBox box(QMessageBox::Warning, tr("Replace?"), tr("These files exist:"), QMessageBox::Cancel, this);
        box.setObjectName(QStringLiteral("replaceOutputsDialog"));
        QStringList names;
        for (const QString &path : existing)
            names << QDir::toNativeSeparators(path).toHtmlEscaped();
        box.setInformativeText(tr("<p>%1</p><p>The recording replaces them once it has finished.</p>")
                                   .arg(names.join(QStringLiteral("<br>"))));
        QPushButton *replace = box.addButton(tr("Replace"), QMessageBox::AcceptRole);
        replace->setObjectName(QStringLiteral("replaceOutputsButton"));
        box.setDefaultButton(QMessageBox::Cancel);
        box.exec();
        if (box.clickedButton() != replace)
            return;
        m_replace = true;
    }
    QDialog::accept();
}

} // namespace dimscope
