from django import forms
from django.core.validators import RegexValidator

cluster_name = RegexValidator(
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
    "a cluster name must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character",
)


class ClusterForm(forms.Form):
    name = forms.CharField(max_length=63, validators=[cluster_name])
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    seed = forms.IntegerField(required=False, initial=0, min_value=0, max_value=2**62)

    def clean_seed(self):
        return self.cleaned_data.get("seed") or 0


class ImportForm(forms.Form):
    MAX_BYTES = 20 * 1024 * 1024

    name = forms.CharField(max_length=63, validators=[cluster_name])
    description = forms.CharField(required=False)
    file = forms.FileField(required=False, help_text="YAML or JSON, one or many documents")
    text = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false"}))

    def clean(self):
        data = super().clean()
        upload = data.get("file")
        if upload:
            if upload.size > self.MAX_BYTES:
                raise forms.ValidationError(f"the file is larger than {self.MAX_BYTES // (1024 * 1024)} MiB")
            try:
                data["text"] = upload.read().decode("utf-8")
            except UnicodeDecodeError:
                raise forms.ValidationError("the file is not UTF-8 text") from None
            data["source"] = upload.name
        else:
            data["source"] = "pasted text"
        if not (data.get("text") or "").strip():
            raise forms.ValidationError("upload a file or paste YAML")
        return data
