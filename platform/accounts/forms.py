from django import forms
from django.conf import settings
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

from accounts.models import User


class SignUpForm(UserCreationForm):
    display_name = forms.CharField(label=_("Display name"), max_length=40, required=False)
    preferred_language = forms.ChoiceField(label=_("Language"), choices=settings.LANGUAGES, initial="en")

    class Meta:
        model = User
        fields = ("username",)


class ProfileForm(forms.Form):
    display_name = forms.CharField(label=_("Display name"), max_length=40)
    preferred_language = forms.ChoiceField(label=_("Language"), choices=settings.LANGUAGES)
